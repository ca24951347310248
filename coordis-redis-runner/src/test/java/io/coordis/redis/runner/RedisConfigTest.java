package io.coordis.redis.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisConfigTest {

    @Test
    void commandLineMaskingHidesPasswords() {
        assertThat(RedisConfig.maskArgs(List.of("--requirepass", "x", "--maxmemory", "1mb", ">y")))
                .containsExactly("--requirepass", "***", "--maxmemory", "1mb", ">***");
    }

    @Test
    void tokensAreQuotedSoValuesReachTheServerUnchanged() {
        assertThat(RedisConfig.of(6399, "127.0.0.1", Path.of("/tmp/a b")).line("requirepass", "se\"cr\\et").toString())
                .contains("\"port\" \"6399\"")
                .contains("\"bind\" \"127.0.0.1\"")
                .contains("\"daemonize\" \"no\"")
                .contains("\"dir\" \"/tmp/a b\"")
                .contains("\"logfile\" \"/tmp/a b/redis.log\"")
                .contains("\"requirepass\" \"se\\\"cr\\\\et\"");
    }
}
