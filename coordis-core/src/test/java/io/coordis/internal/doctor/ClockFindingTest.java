package io.coordis.internal.doctor;

import io.coordis.doctor.Finding;
import io.coordis.internal.doctor.ServerDoctor.ClockOffset;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The doctor's clock-skew finding from measured offsets, without Redis. */
class ClockFindingTest {
    private static final Duration MAX = Duration.ofMillis(100);

    @Test
    void clocksFurtherApartThanMaxSkewAreAWarningNamingBothNodes() {
        Finding f = ServerDoctor.clockFinding(List.of(
                new ClockOffset("a:6379", 10_000, 200),
                new ClockOffset("b:6379", 260_000, 300),
                new ClockOffset("c:6379", 50_000, 100)), MAX);
        assertThat(f.severity()).isEqualTo(Finding.Severity.WARN);
        assertThat(f.node()).isEqualTo("*");
        assertThat(f.topic()).isEqualTo("clock");
        assertThat(f.message()).isEqualTo("clocks of 3 nodes differ by at most 250.0 ms (± 0.5 ms), b:6379 ahead of "
                + "a:6379; more than 100 ms");
        assertThat(f.fix()).contains("NTP");
    }

    @Test
    void clocksWithinMaxSkewAreOk() {
        Finding f = ServerDoctor.clockFinding(List.of(
                new ClockOffset("a:6379", -20_000, 150),
                new ClockOffset("b:6379", 40_000, 150)), MAX);
        assertThat(f.severity()).isEqualTo(Finding.Severity.OK);
        assertThat(f.message()).isEqualTo("clocks of 2 nodes differ by at most 60.0 ms (± 0.3 ms), b:6379 ahead of a:6379");
        assertThat(f.fix()).isEmpty();
    }

    @Test
    void theLimitItselfIsOkAndOneMicrosecondMoreIsAWarning() {
        assertThat(ServerDoctor.clockFinding(List.of(new ClockOffset("a:1", 0, 0), new ClockOffset("b:2", 100_000, 0)), MAX)
                .severity()).isEqualTo(Finding.Severity.OK);
        assertThat(ServerDoctor.clockFinding(List.of(new ClockOffset("a:1", 0, 0), new ClockOffset("b:2", 100_001, 0)), MAX)
                .severity()).isEqualTo(Finding.Severity.WARN);
    }

    @Test
    void aSkewThatTheRoundTripsCannotTellFromTheLimitIsNotWarnedAbout() {
        // 150 ms apart, but each reading may be 30 ms off: the true skew may be 90 ms
        List<ClockOffset> uncertain = List.of(new ClockOffset("a:1", 0, 30_000), new ClockOffset("b:2", 150_000, 30_000));
        assertThat(ServerDoctor.clockFinding(uncertain, MAX).severity()).isEqualTo(Finding.Severity.OK);
        assertThat(ServerDoctor.clockFinding(uncertain, Duration.ofMillis(80)).severity()).as("a tighter --max-skew")
                .isEqualTo(Finding.Severity.WARN);
    }

    @Test
    void oneNodeHasNoSkew() {
        assertThatThrownBy(() -> ServerDoctor.clockFinding(List.of(new ClockOffset("a:1", 0, 0)), MAX))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least two");
    }
}
