package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Several masters; the flush before each test skips a server an earlier test killed. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionMastersIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    @Test
    @Order(1)
    void threeMastersAndOneGetsKilled() {
        assertThat(redis.servers()).hasSize(3);
        assertThat(redis.uris()).hasSize(3).doesNotHaveDuplicates();
        for (RedisServer s : redis.servers()) {
            s.command("SET", "k", "v");
        }
        redis.servers().get(0).kill();
    }

    @Test
    @Order(2)
    void runningServersAreFlushedKilledOneIsLeftAlone() {
        assertThat(redis.server().isRunning()).isFalse();
        assertThat(redis.servers().get(1).command("DBSIZE")).isEqualTo(0L);
        assertThat(redis.servers().get(2).command("DBSIZE")).isEqualTo(0L);
    }
}
