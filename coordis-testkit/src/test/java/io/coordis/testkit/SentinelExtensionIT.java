package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** RedisExtension.sentinel: the group is injected and only masters are flushed between tests. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SentinelExtensionIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.sentinel(1, 1);

    @Test
    @Order(1)
    void injectsTheSentinelGroup(SentinelGroup group, RedisGroup servers, RedisServer first) {
        assertThat(group).isSameAs(redis.sentinelGroup());
        assertThat(servers).isSameAs(group.redis());
        assertThat(first).isSameAs(group.initialMaster());
        assertThat(redis.sentinelUri()).isEqualTo(group.sentinelUri()).endsWith("#" + SentinelGroup.DEFAULT_MASTER_NAME);
        group.master().command("SET", "left", "over");
    }

    @Test
    @Order(2)
    void masterIsFlushedBeforeTheNextTest(SentinelGroup group) {
        assertThat(group.master().command("DBSIZE")).isEqualTo(0L);
    }
}
