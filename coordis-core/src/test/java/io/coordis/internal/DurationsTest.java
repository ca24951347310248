package io.coordis.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationsTest {

    @Test
    void tooSmallNamesTheConditionAndTheValue() {
        assertThatThrownBy(() -> Durations.atLeast(Duration.ZERO, Duration.ofMillis(100), "lock ttl"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock ttl must be at least 100ms, was 0ms");
        assertThatThrownBy(() -> Durations.atLeast(Duration.ofSeconds(-5), Duration.ofMillis(100), "lock ttl"))
                .hasMessageContaining("was -5s");
    }

    @Test
    void nullIsRejectedWithTheName() {
        assertThatThrownBy(() -> Durations.notNegative(null, "wait"))
                .isInstanceOf(NullPointerException.class).hasMessage("wait must not be null");
    }

    @Test
    void saturatesInsteadOfOverflowing() {
        assertThat(Durations.saturatedNanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.saturatedAdd(Long.MAX_VALUE - 1, 10)).isEqualTo(Long.MAX_VALUE);
        assertThat(Durations.saturatedAdd(5, 10)).isEqualTo(15);
    }

    @Test
    void formatsForPeople() {
        assertThat(Durations.format(Duration.ofMillis(250))).isEqualTo("250ms");
        assertThat(Durations.format(Duration.ofMillis(4200))).isEqualTo("4.2s");
        assertThat(Durations.format(Duration.ofSeconds(30))).isEqualTo("30s");
        assertThat(Durations.format(Duration.ofMinutes(5))).isEqualTo("5m");
    }
}
