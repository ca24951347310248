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
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(Durations.format(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(Durations.format(Duration.ofDays(30))).isEqualTo("30d");
        assertThat(Durations.format(Duration.ofDays(30).plusMillis(1))).isEqualTo("2592000.001s");
        assertThat(Durations.format(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE + "s");
        assertThat(Durations.format(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)))
                .isEqualTo(Long.MAX_VALUE + ".999s");
        assertThat(Durations.format(Duration.ofMillis(90_250))).isEqualTo("90.25s");
        assertThat(Durations.format(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE + "s");
    }

    @Test
    void betweenNamesTheBoundItBrokeAndTheValue() {
        Duration max = Duration.ofDays(30);
        assertThat(Durations.between(max, Duration.ofMillis(100), max, "lock ttl")).isEqualTo(max);
        assertThatThrownBy(() -> Durations.between(max.plusMillis(1), Duration.ofMillis(100), max, "lock ttl"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock ttl must be at most 30d, was 2592000.001s");
        assertThatThrownBy(() -> Durations.between(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(100), max,
                "lock ttl")).hasMessage("lock ttl must be at most 30d, was " + Long.MAX_VALUE + "s");
        assertThatThrownBy(() -> Durations.between(Duration.ofMillis(99), Duration.ofMillis(100), max, "lock ttl"))
                .hasMessage("lock ttl must be at least 100ms, was 99ms");
    }
}
