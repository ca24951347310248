package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coordis.redis.runner.RedisBinary;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RedisServerBuilderTest {

    private final RedisBinary binary = RedisBinary.resolve();

    @Test
    void defaultConfigIsLoopbackNonPersistentAndNotDaemonized() {
        String conf = RedisServer.builder().render(6399, Path.of("/tmp/x"), binary, false);
        assertThat(conf)
                .contains("\"port\" \"6399\"")
                .contains("\"bind\" \"127.0.0.1\"")
                .contains("\"daemonize\" \"no\"")
                .contains("save \"\"")
                .contains("\"appendonly\" \"no\"")
                .contains("\"dir\" \"/tmp/x\"");
    }

    @Test
    void passwordsAreQuotedAndMaskedOnRequest() {
        RedisServerBuilder b = RedisServer.builder()
                .requirePass("se\"cr et")
                .aclUser("alice", "pw1", "~*", "&*", "+@all");
        assertThat(b.render(1, Path.of("/d"), binary, false))
                .contains("\"requirepass\" \"se\\\"cr et\"")
                .contains("\"user\" \"alice\" \"on\" \">pw1\" \"~*\" \"&*\" \"+@all\"");
        assertThat(b.render(1, Path.of("/d"), binary, true))
                .doesNotContain("cr et")
                .doesNotContain("pw1")
                .contains("\"requirepass\" \"***\"");
    }

    @Test
    void invalidOptionsAreRejectedWithTheReason() {
        assertThatThrownBy(() -> RedisServer.builder().appendFsync("sometimes"))
                .hasMessageContaining("always, everysec or no");
        assertThatThrownBy(() -> RedisServer.builder().port(70000)).hasMessageContaining("1..65535");
        assertThatThrownBy(() -> RedisServer.builder().requirePass("")).hasMessageContaining("must not be empty");
    }

    @Test
    void debugCommandOnlyConfiguredFromRedis7() {
        String conf = RedisServer.builder().enableDebugCommand().render(1, Path.of("/d"), binary, false);
        if (binary.majorVersion() >= 7) {
            assertThat(conf).contains("\"enable-debug-command\" \"yes\"");
        } else {
            assertThat(conf).doesNotContain("enable-debug-command");
        }
    }
}
