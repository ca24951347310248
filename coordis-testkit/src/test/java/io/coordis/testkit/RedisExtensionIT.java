package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Static registration: one server shared by the class, flushed before each test. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static long firstPid;

    @BeforeAll
    static void serverIsUpBeforeAll(RedisServer server) {
        assertThat(server.isRunning()).isTrue();
        assertThat(server).isSameAs(redis.server());
    }

    @Test
    @Order(1)
    void writesData(RedisServer server) {
        firstPid = server.pid();
        assertThat(redis.uri()).isEqualTo(server.uri());
        assertThat(redis.uris()).containsExactly(server.uri());
        assertThat(redis.servers()).containsExactly(server);
        server.command("SET", "left", "over");
    }

    @Test
    @Order(2)
    void nextTestSeesSameServerFlushed(RedisServer server, RedisGroup group) {
        assertThat(server.pid()).isEqualTo(firstPid);
        assertThat(group).isSameAs(redis.group());
        assertThat(server.command("DBSIZE")).isEqualTo(0L);
    }
}
