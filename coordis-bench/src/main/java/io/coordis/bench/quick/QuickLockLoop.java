package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A quick, uncontended acquire+release loop: Coordis against the same cycle in raw Lettuce commands
 * (SET NX PX, then the compare-and-delete script), interleaved in one run on one redis-server. Not a
 * benchmark suite: a first ratio. Run with {@code coordis-bench/run quick QuickLockLoop [ops] [rounds]}.
 */
public final class QuickLockLoop {
    private static final String DELETE_IF_OURS =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (RedisServer server = RedisServer.start();
             Coordis coordis = Coordis.connect(server.uri())) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> raw = conn.sync();
                String sha = raw.scriptLoad(DELETE_IF_OURS);
                DistributedLock lock = coordis.lock("quick:coordis");
                Runnable coordisCycle = () -> lock.tryAcquire().orElseThrow().close();
                String rawKey = "quick:raw";
                Runnable rawCycle = () -> {
                    String token = RawTokens.next();
                    if (!"OK".equals(raw.set(rawKey, token, SetArgs.Builder.nx().px(30_000)))) {
                        throw new IllegalStateException("raw lock busy");
                    }
                    raw.evalsha(sha, ScriptOutputType.INTEGER, new String[]{rawKey}, token);
                };
                run(coordisCycle, ops / 4);
                run(rawCycle, ops / 4);
                System.out.printf("redis %s, %d ops per round, %d rounds, interleaved%n", server.version(), ops, rounds);
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    double c;
                    double w;
                    if (r % 2 == 0) {
                        c = run(coordisCycle, ops);
                        w = run(rawCycle, ops);
                    } else {
                        w = run(rawCycle, ops);
                        c = run(coordisCycle, ops);
                    }
                    ratios[r] = c / w;
                    System.out.printf("round %d: coordis %.0f ops/s, raw lettuce %.0f ops/s, ratio %.2f%n", r + 1, c, w, ratios[r]);
                }
                java.util.Arrays.sort(ratios);
                System.out.printf("median ratio coordis / raw lettuce: %.2f (min %.2f, max %.2f)%n",
                        ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
            } finally {
                client.shutdown();
            }
        }
    }

    private static double run(Runnable cycle, int ops) {
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            cycle.run();
        }
        return ops / ((System.nanoTime() - start) / 1e9);
    }
}
