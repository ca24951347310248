package io.coordis.internal.lock;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.FencedClient;

import java.util.List;

/**
 * A deliberately broken semaphore for the referee to catch: the real acquisition script with its permit check
 * taken out, so every try is granted. Run by threads in the test's JVM, each on its own connection.
 */
final class BrokenSemaphore {
    private static final String SOURCE = QueuedSemaphore.ACQUIRE.source().replace("free >= wanted", "true");

    private BrokenSemaphore() {
    }

    /** Takes a permit, enters and writes to the referee, leaves and releases, {@code cycles} times. */
    static void cycle(RedisServer server, String name, int permits, String referee, String client, int cycles)
            throws InterruptedException {
        String key = Prefixed.key(name);
        List<String> keys = SemaphoreLayout.acquireKeys(key);
        try (RespClient redis = RespClient.connect(server); FencedClient resource = FencedClient.connect(referee, client)) {
            for (int i = 0; i < cycles; i++) {
                String token = client + "-" + i;
                List<?> reply = (List<?>) redis.command("EVAL", SOURCE, "6", keys.get(0), keys.get(1), keys.get(2),
                        keys.get(3), keys.get(4), keys.get(5), token, "1", "10000", client, Integer.toString(permits),
                        "3000", SemaphoreLayout.releasedChannel(key), "600000");
                long fence = (Long) reply.get(1);
                resource.enter(fence);
                Thread.sleep(2);
                resource.exit(fence);
                List<String> out = SemaphoreLayout.releaseKeys(key);
                redis.command("EVAL", QueuedSemaphore.RELEASE.source(), "4", out.get(0), out.get(1), out.get(2),
                        out.get(3), token, SemaphoreLayout.releasedChannel(key));
            }
        }
    }
}
