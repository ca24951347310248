package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.coordis.redis.runner.RedisBinary;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The redis-server shipped inside the embedded-redis jar, forced by system property. */
class EmbeddedBinaryIT {

    @AfterEach
    void clearProperty() {
        System.clearProperty(RedisBinary.EMBEDDED_PROPERTY);
    }

    @Test
    void forcedEmbeddedBinaryStartsAndReportsVersion62() {
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "true");
        RedisBinary binary = RedisBinary.resolve();
        assertThat(binary.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
        try (RedisServer server = RedisServer.builder().enableDebugCommand().start()) {
            assertThat(server.binary().source()).isEqualTo(RedisBinary.Source.EMBEDDED);
            assertThat(server.version()).startsWith("6.2.");
            assertThat(server.info("server").get("redis_version")).isEqualTo(server.version());
            assertThat(server.command("PING")).isEqualTo("PONG");
            server.restart(Duration.ZERO);
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void explicitBinaryWinsOverLookup() {
        RedisBinary embedded = RedisBinary.embedded();
        try (RedisServer server = RedisServer.builder().binary(embedded).start()) {
            assertThat(server.binary().path()).isEqualTo(embedded.path());
            assertThat(server.version()).startsWith("6.2.");
        }
    }
}
