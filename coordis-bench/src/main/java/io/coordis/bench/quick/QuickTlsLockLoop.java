package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.TestCertificates;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
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
                DistributedLock lock = coordis.lock("quick:coordis");
                DistributedLock plainLock = plain.lock("quick:plain");
                Runnable coordisCycle = () -> lock.tryAcquire().orElseThrow().close();
                Runnable plainCycle = () -> plainLock.tryAcquire().orElseThrow().close();
                Runnable rawCycle = RawLock.cycle(raw, () -> "quick:raw");
                Interleaved.rate(coordisCycle, ops / 4);
                Interleaved.rate(rawCycle, ops / 4);
                Interleaved.rate(plainCycle, ops / 4);
                System.out.printf("redis %s, mutual TLS, %d ops per round, %d rounds, interleaved%n", server.version(),
                        ops, rounds);
                double[] ratios = new double[rounds];
                double[] tlsCost = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    double[] rates = Interleaved.round(r, ops, coordisCycle, rawCycle, plainCycle);
                    double c = rates[0];
                    double w = rates[1];
                    double p = rates[2];
                    ratios[r] = c / w;
                    tlsCost[r] = c / p;
                    System.out.printf("round %d: coordis TLS %.0f ops/s, raw lettuce TLS %.0f ops/s, coordis plain %.0f "
                            + "ops/s; coordis/raw %.2f, TLS/plain %.2f%n", r + 1, c, w, p, ratios[r], tlsCost[r]);
                }
                System.out.printf("median ratio coordis / raw lettuce (both TLS): %s%n", Interleaved.spread(ratios));
                System.out.printf("median ratio coordis TLS / coordis plain: %s%n", Interleaved.spread(tlsCost));
            } finally {
                client.shutdown();
            }
        }
    }
}
