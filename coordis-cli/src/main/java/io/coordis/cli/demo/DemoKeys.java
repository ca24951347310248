package io.coordis.cli.demo;

import io.coordis.Urls;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/** Removes what the demo wrote to a Redis it was given: the keys named {@code demo:*} and {@code {demo:*}. */
final class DemoKeys {
    private DemoKeys() {
    }

    static void remove(String url, PrintStream say) {
        if (!url.startsWith("redis://") && !url.startsWith("rediss://")) {
            say.println("left the demo's keys (demo:* and {demo:*) in place: removing them is done for a single "
                    + "server (redis:// or rediss://) only");
            return;
        }
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> redis = conn.sync();
            long removed = 0;
            for (String match : List.of("demo:*", "{demo:*")) {
                ScanCursor cursor = ScanCursor.INITIAL;
                do {
                    KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches(match).limit(500));
                    if (!page.getKeys().isEmpty()) {
                        removed += redis.unlink(page.getKeys().toArray(String[]::new));
                    }
                    cursor = page;
                } while (!cursor.isFinished());
            }
            say.println("removed the demo's " + removed + " keys (demo:* and {demo:*) from " + Urls.redact(url));
        } catch (RuntimeException e) {
            say.println("could not remove the demo's keys (demo:* and {demo:*) from " + Urls.redact(url) + ": "
                    + e.getMessage());
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
