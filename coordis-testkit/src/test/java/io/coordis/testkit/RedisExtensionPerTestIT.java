package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Instance-field registration: a fresh server per test, closed after it. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionPerTestIT {

    @RegisterExtension
    final RedisExtension redis = RedisExtension.standalone();

    private static RedisServer previous;

    @Test
    @Order(1)
    void firstTestGetsAServer(RedisServer server) {
        assertThat(server.isRunning()).isTrue();
        previous = server;
    }

    @Test
    @Order(2)
    void secondTestGetsANewServerAndTheOldOneIsGone(RedisServer server) {
        assertThat(previous.isRunning()).isFalse();
        assertThat(server).isNotSameAs(previous);
        assertThat(server.command("PING")).isEqualTo("PONG");
        previous = server;
    }

    @AfterAll
    static void lastServerIsClosed() {
        assertThat(previous.isRunning()).isFalse();
        assertThatThrownBy(() -> previous.command("PING")).hasMessageContaining("not running");
    }
}
