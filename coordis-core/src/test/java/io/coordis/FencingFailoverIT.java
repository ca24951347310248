package io.coordis;

import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing numbers keep rising on Redis Cluster when the master of a lock's slot is killed (SIGKILL) and its
 * replica promoted, whether or not the replica had received the counter's last value: numbers taken from the
 * counter it has, or from its clock when it has none, lie above every number the dead master gave.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FencingFailoverIT {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.builder().masters(3).replicasPerMaster(1).start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void numbersTakenAfterAFailoverLieAboveThoseBeforeIt() throws Exception {
        LockOptions options = LockOptions.defaults().withTtl(Duration.ofSeconds(5));
        try (Coordis coordis = TestClients.builder().url(cluster.uri()).commandTimeout(Duration.ofSeconds(1))
                .connect()) {
            List<String> keys = cluster.keysOnEveryMaster(Prefixed.key("fenced-failover-"));
            String key = keys.get(0);
            String name = key.substring(Prefixed.prefix().length());
            long before = 0;
            for (int i = 0; i < 20; i++) {
                Lease lease = coordis.lock(name, options).tryAcquire().orElseThrow();
                assertThat(lease.fencingToken()).isGreaterThan(before);
                before = lease.fencingToken();
                assertThat(lease.release()).isTrue();
            }
            RedisServer master = cluster.masterForKey(key);
            RedisServer replica = cluster.replicasOf(master).get(0);
            master.kill(); // no wait for the replica: it may or may not have the counter's last value
            cluster.failover(replica, true);

            // the wait rides out the failover; the number comes from the promoted replica
            Lease after = coordis.lock(name, options).acquire(Duration.ofSeconds(60)).orElseThrow();
            System.out.printf("FencingFailoverIT: last number before the failover %d, first after %d%n", before,
                    after.fencingToken());
            assertThat(after.fencingToken()).isGreaterThan(before);
            assertThat(after.release()).isTrue();
        }
    }
}
