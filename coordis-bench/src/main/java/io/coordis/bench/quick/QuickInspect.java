package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.inspect.Inspector;
import io.coordis.lock.LockOptions;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How long {@code Inspector.locks("*")} (what {@code coordis ls locks} runs) takes over many locks, against
 * the least raw Lettuce can do for the same table: SCAN TYPE string, then pipelined GET, PTTL and HGETALL of
 * the holder hash per key. Interleaved rounds on one redis-server. Run with
 * {@code coordis-bench/run quick QuickInspect [locks] [rounds]}.
 */
public final class QuickInspect {
    public static void main(String[] args) throws Exception {
        int locks = QuickRun.arg(args, 0, 2_000);
        int rounds = QuickRun.arg(args, 1, 7);
        try (QuickRun quick = QuickRun.start()) {
            LockOptions options = LockOptions.defaults().withTtl(Duration.ofMinutes(10)).withAutoRenew(false);
            for (int i = 0; i < locks / 2; i++) {
                quick.coordis.lock("quick:coordis:" + i, options).tryAcquire().orElseThrow();
            }
            RedisAsyncCommands<String, String> raw = quick.connection.async();
            for (int i = 0; i < locks - locks / 2; i++) {
                raw.set("quick:foreign:" + i, "tok-" + i,
                        SetArgs.Builder.nx().px(600_000));
            }
            raw.dbsize().get(5, TimeUnit.SECONDS);
            Inspector inspector = quick.coordis.inspector();
            for (int w = 0; w < 3; w++) {
                inspector.locks("*");
                rawTable(raw);
            }
            System.out.printf("redis %s, %d locks (half Coordis, half foreign), %d rounds, interleaved%n",
                    quick.server.version(), locks, rounds);
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long c;
                long l;
                if (r % 2 == 0) {
                    c = time(() -> check(inspector.locks("*").size(), locks));
                    l = time(() -> check(rawTable(raw), locks));
                } else {
                    l = time(() -> check(rawTable(raw), locks));
                    c = time(() -> check(inspector.locks("*").size(), locks));
                }
                ratios[r] = (double) c / l;
                System.out.printf("round %d: inspector %.1f ms, raw lettuce %.1f ms, ratio %.2f%n", r + 1,
                        c / 1e6, l / 1e6, ratios[r]);
            }
            System.out.printf("median ratio inspector / raw lettuce (time, lower is better): %s%n",
                    Interleaved.spread(ratios));
        }
    }

    private interface Work {
        void run() throws Exception;
    }

    private static long time(Work work) throws Exception {
        long start = System.nanoTime();
        work.run();
        return System.nanoTime() - start;
    }

    private static void check(int found, int expected) {
        if (found != expected) {
            throw new IllegalStateException("found " + found + " locks, expected " + expected);
        }
    }

    /** SCAN TYPE string, then GET + PTTL + HGETALL {key}:holder per key, pipelined; answers the rows. */
    private static int rawTable(RedisAsyncCommands<String, String> raw) throws Exception {
        List<String> keys = new ArrayList<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = raw.scan(cursor,
                    KeyScanArgs.Builder.limit(1000).match("*").type("string")).get(5, TimeUnit.SECONDS);
            for (String k : page.getKeys()) {
                if (!k.startsWith("{")) {
                    keys.add(k);
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        List<RedisFuture<String>> values = new ArrayList<>();
        List<RedisFuture<Long>> ttls = new ArrayList<>();
        List<RedisFuture<Map<String, String>>> holders = new ArrayList<>();
        for (String k : keys) {
            values.add(raw.get(k));
            ttls.add(raw.pttl(k));
            holders.add(raw.hgetall("{" + k + "}:holder"));
        }
        int rows = 0;
        for (int i = 0; i < keys.size(); i++) {
            values.get(i).get(5, TimeUnit.SECONDS);
            ttls.get(i).get(5, TimeUnit.SECONDS);
            holders.get(i).get(5, TimeUnit.SECONDS);
            rows++;
        }
        return rows;
    }
}
