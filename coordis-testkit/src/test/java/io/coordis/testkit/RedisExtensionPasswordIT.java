package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisExtensionPasswordIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder().requirePass("s3cret"));

    @Test
    void serverRequiresThePassword(RedisServer server) {
        assertThat(redis.uri()).isEqualTo("redis://:s3cret@127.0.0.1:" + server.port());
        try (RespClient anonymous = RespClient.connect(server.host(), server.port())) {
            assertThatThrownBy(() -> anonymous.command("PING")).hasMessageStartingWith("NOAUTH");
        }
        try (RespClient authed = RespClient.connect(server)) {
            assertThat(authed.command("PING")).isEqualTo("PONG");
        }
    }
}
