package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RedisClusterIT {

    @Test
    void startsAClusterWhoseSlotsFollowAFailover() {
        long started = System.nanoTime();
        try (RedisCluster cluster = RedisCluster.builder().masters(3).replicasPerMaster(1).start()) {
            System.out.println("cluster of 6 redis-server " + cluster.masters().get(0).version() + " started in "
                    + (System.nanoTime() - started) / 1_000_000 + " ms");
            assertThat(cluster.masters()).hasSize(3);
            assertThat(cluster.replicas()).hasSize(3);
            assertThat(cluster.uri()).startsWith("redis-cluster://127.0.0.1:");
            // the key's owner accepts it; another master redirects
            String key = "orders";
            RedisServer owner = cluster.masterForKey(key);
            assertThat(owner.command("SET", key, "v")).isEqualTo("OK");
            RedisServer other = cluster.masters().stream().filter(s -> s != owner).findFirst().orElseThrow();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> other.command("GET", key))
                    .hasMessageContaining("MOVED " + RedisCluster.slot(key));
            assertThat(RedisCluster.slot("{orders}:fence")).isEqualTo(RedisCluster.slot(key));
            assertThat(RedisCluster.slot("foo")).isEqualTo(12182); // CLUSTER KEYSLOT foo
            assertThat(owner.command("CLUSTER", "KEYSLOT", "a{b}c")).isEqualTo((long) RedisCluster.slot("a{b}c"));
            List<String> spread = cluster.keysOnEveryMaster("k");
            assertThat(spread).hasSize(3);
            assertThat(spread.stream().map(cluster::masterForKey).distinct()).hasSize(3);

            RedisServer replica = cluster.replicasOf(owner).get(0);
            cluster.failover(replica, false);
            assertThat(cluster.masterForKey(key)).isSameAs(replica);
            assertThat(replica.command("GET", key)).isEqualTo("v");
            cluster.flushAll();
            assertThat(replica.command("DBSIZE")).isEqualTo(0L);

            // the old master, now the replica, takes its slots back on its own
            assertThat(cluster.replicasOf(replica)).containsExactly(owner);
            cluster.takeover(owner);
            assertThat(cluster.masterForKey(key)).isSameAs(owner);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(cluster.replicasOf(owner)).containsExactly(replica));
        }
    }
}
