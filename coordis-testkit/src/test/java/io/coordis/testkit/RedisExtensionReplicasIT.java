package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Master plus replica; flushing the master empties the replica too (replicas are never flushed directly). */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionReplicasIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.withReplicas(1);

    @Test
    @Order(1)
    void replicaFollowsMaster(RedisGroup group) {
        assertThat(group.replicas()).hasSize(1);
        assertThat(redis.server()).isSameAs(group.master());
        group.master().command("SET", "k", "v");
        RedisServer replica = group.replicas().get(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> "v".equals(replica.command("GET", "k")));
    }

    @Test
    @Order(2)
    void flushReachesTheReplica(RedisGroup group) {
        assertThat(group.master().command("DBSIZE")).isEqualTo(0L);
        RedisServer replica = group.replicas().get(0);
        await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(0).equals(replica.command("DBSIZE")));
    }
}
