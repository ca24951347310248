package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.TestCertificates;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A quick, uncontended acquire+release loop over mutual TLS (client certificates): Coordis against the same
 * cycle in raw Lettuce commands with the same certificates, interleaved on one redis-server, and Coordis over TLS
 * against Coordis over plain TCP on a second server. Not a benchmark suite: first ratios. Run with
 * {@code coordis-bench/run quick QuickTlsLockLoop [ops] [rounds]}.
 */
public final class QuickTlsLockLoop {
    private static final String DELETE_IF_OURS =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        TestCertificates certs = TestCertificates.get();
        try (RedisServer server = RedisServer.builder().tlsAuthClients().start();
             RedisServer plainServer = RedisServer.start();
             Coordis coordis = Coordis.builder().url(server.uri()).trustedCertificates(certs.caFile())
                     .clientCertificate(certs.client().certFile(), certs.client().keyFile()).connect();
             Coordis plain = Coordis.connect(plainServer.uri())) {
            RedisClient client = RedisClient.create(server.uri());
            client.setOptions(ClientOptions.builder().sslOptions(SslOptions.builder().jdkSslProvider()
                    .trustManager(certs.caFile().toFile())
                    .keyManager(certs.client().certFile().toFile(), certs.client().keyFile().toFile(), null)
                    .build()).build());
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> raw = conn.sync();
                String sha = raw.scriptLoad(DELETE_IF_OURS);
                DistributedLock lock = coordis.lock("quick:coordis");
                DistributedLock plainLock = plain.lock("quick:plain");
                Runnable coordisCycle = () -> lock.tryAcquire().orElseThrow().close();
                Runnable plainCycle = () -> plainLock.tryAcquire().orElseThrow().close();
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
                run(plainCycle, ops / 4);
                System.out.printf("redis %s, mutual TLS, %d ops per round, %d rounds, interleaved%n", server.version(),
                        ops, rounds);
                double[] ratios = new double[rounds];
                double[] tlsCost = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    double c;
                    double w;
                    double p;
                    if (r % 2 == 0) {
                        c = run(coordisCycle, ops);
                        w = run(rawCycle, ops);
                        p = run(plainCycle, ops);
                    } else {
                        p = run(plainCycle, ops);
                        w = run(rawCycle, ops);
                        c = run(coordisCycle, ops);
                    }
                    ratios[r] = c / w;
                    tlsCost[r] = c / p;
                    System.out.printf("round %d: coordis TLS %.0f ops/s, raw lettuce TLS %.0f ops/s, coordis plain %.0f "
                            + "ops/s; coordis/raw %.2f, TLS/plain %.2f%n", r + 1, c, w, p, ratios[r], tlsCost[r]);
                }
                java.util.Arrays.sort(ratios);
                java.util.Arrays.sort(tlsCost);
                System.out.printf("median ratio coordis / raw lettuce (both TLS): %.2f (min %.2f, max %.2f)%n",
                        ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
                System.out.printf("median ratio coordis TLS / coordis plain: %.2f (min %.2f, max %.2f)%n",
                        tlsCost[rounds / 2], tlsCost[0], tlsCost[rounds - 1]);
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
