package io.coordis.internal.redis;

import io.coordis.NodeUnavailableException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class RedisErrorsTest {

    @Test
    void timeoutsAreMarkedAsSuchAndOtherUnavailabilityIsNot() {
        assertThat(RedisErrors.translate(new RedisCommandTimeoutException("Command timed out"), "h:1"))
                .isInstanceOfSatisfying(NodeUnavailableException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(RedisErrors.translate(new TimeoutException("no reply within 50 ms"), "h:1"))
                .isInstanceOfSatisfying(NodeUnavailableException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(RedisErrors.translate(new RedisConnectionException("Unable to connect to h:1"), "h:1"))
                .isInstanceOfSatisfying(NodeUnavailableException.class, e -> assertThat(e.timedOut()).isFalse());
    }
}
