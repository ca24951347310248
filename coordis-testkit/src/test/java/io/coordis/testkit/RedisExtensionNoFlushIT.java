package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionNoFlushIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone().noFlush();

    @Test
    @Order(1)
    void writes() {
        redis.server().command("SET", "kept", "1");
    }

    @Test
    @Order(2)
    void dataIsKeptBetweenTests() {
        assertThat(redis.server().command("GET", "kept")).isEqualTo("1");
    }
}
