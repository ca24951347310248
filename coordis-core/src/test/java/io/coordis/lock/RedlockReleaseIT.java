package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.internal.lock.RedlockNodes;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redlock release that a node did not answer in time is sent to it again once its connection has been replaced, so
 * the node lets the name go as soon as it is reachable, not at the end of the TTL.
 */
class RedlockReleaseIT {
    private static final int N = 5;
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(200);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(N);

    /**
     * Node 4 is cut off (its proxy forwards nothing) while the lock is released: the majority lets go at once, node 4's
     * release times out and its connection is given up. The cut then kills the connections (the release they held is
     * gone, as in a partition that resets them) and heals. Node 4 no longer holds the key well within the TTL: after
     * about a node timeout and a reconnection, not after 30 s.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aReleaseANodeMissedIsSentAgainOnItsNewConnection() throws Exception {
        List<RedisServer> servers = redis.servers();
        try (FaultProxy proxy = FaultProxy.to(servers.get(4))) {
            List<String> uris = new ArrayList<>(redis.uris().subList(0, 4));
            uris.add(proxy.uri());
            try (Coordis client = TestClients.connect(uris)) {
                RedlockNodes.warmUp(client, N);
                String name = "release:resent";
                String key = Prefixed.key(name);
                DistributedLock lock = client.lock(name, LockOptions.defaults().withTtl(TTL).withAutoRenew(false)
                        .withRestartGuard(false).withNodeTimeout(NODE_TIMEOUT));
                Lease lease = lock.tryAcquire().orElseThrow();
                await().atMost(Duration.ofSeconds(5)).until(() -> lease.token().equals(servers.get(4).command("GET", key)));

                int connections = proxy.acceptedCount();
                proxy.blackhole();
                assertThat(lease.release()).as("released by the majority").isTrue();
                // node 4's release timed out and its connection was replaced: a new one reaches the proxy
                await().atMost(Duration.ofSeconds(10)).until(() -> proxy.acceptedCount() > connections);
                assertThat(servers.get(4).command("GET", key)).as("node 4 has not seen the release").isEqualTo(lease.token());
                long ttlLeft = (Long) servers.get(4).command("PTTL", key);

                proxy.resetAll(); // what the cut held is lost with its connections
                proxy.pass();
                long healed = System.nanoTime();
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                        .until(() -> servers.get(4).command("GET", key) == null);
                long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - healed);
                System.out.printf("node 4 let the name go %d ms after the cut healed; its key had %d ms left%n",
                        tookMillis, ttlLeft);
                assertThat(ttlLeft).as("without the release sent again, the key would stay that long")
                        .isGreaterThan(TTL.toMillis() - 10_000);
                assertThat(tookMillis).as("gone within a few node timeouts and a reconnection, far within the TTL")
                        .isLessThan(5_000);
                RedlockNodes.awaitValues(servers, key, Duration.ofSeconds(2), (i, v) -> v == null, "released everywhere");
            }
        }
    }
}
