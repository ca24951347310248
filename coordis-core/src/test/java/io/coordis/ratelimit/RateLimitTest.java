package io.coordis.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rates as values: the command line's text, the defaults, and what is refused with which message. */
class RateLimitTest {

    @Test
    void theCommandLinesTextReadsAsPermitsPerPeriod() {
        assertThat(RateLimit.parse("10/1s")).isEqualTo(RateLimit.of(10, Duration.ofSeconds(1)));
        assertThat(RateLimit.parse("100/1m")).isEqualTo(RateLimit.of(100, Duration.ofMinutes(1)));
        assertThat(RateLimit.parse("5/250ms")).isEqualTo(RateLimit.of(5, Duration.ofMillis(250)));
        assertThat(RateLimit.parse(" 3 / h ")).isEqualTo(RateLimit.of(3, Duration.ofHours(1)));
        assertThat(RateLimit.parse("7/1.5s")).isEqualTo(RateLimit.of(7, Duration.ofMillis(1500)));
        assertThat(RateLimit.parse("2/1D")).isEqualTo(RateLimit.of(2, Duration.ofDays(1)));
    }

    @Test
    void theBurstDefaultsToThePermitCountAndTheIntervalSpreadsThePeriod() {
        RateLimit rate = RateLimit.of(10, Duration.ofSeconds(1));
        assertThat(rate.burst()).isEqualTo(10);
        assertThat(rate.interval()).isEqualTo(Duration.ofMillis(100));
        assertThat(rate).hasToString("10/1s");
        RateLimit smooth = rate.withBurst(1);
        assertThat(smooth.burst()).isEqualTo(1);
        assertThat(smooth.permits()).isEqualTo(10);
        assertThat(smooth).isNotEqualTo(rate).hasToString("10/1s burst 1");
        assertThat(RateLimit.of(3, Duration.ofSeconds(1)).interval()).isEqualTo(Duration.ofNanos(333_333_333));
    }

    @Test
    void badTextIsRefusedWithTheFormItWants() {
        for (String text : new String[] {"10", "10/", "/1s", "ten/1s", "10/1x", "10/-1s", "-1/1s", "10 per second"}) {
            assertThatThrownBy(() -> RateLimit.parse(text)).as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + text + "'").hasMessageContaining("PERMITS/PERIOD");
        }
        assertThatThrownBy(() -> RateLimit.parse("99999999999/1s")).hasMessageContaining("too many permits");
    }

    @Test
    void limitsOutsideTheirRangeAreRefusedNamingTheCondition() {
        assertThatThrownBy(() -> RateLimit.of(0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 permit per period, got 0");
        assertThatThrownBy(() -> RateLimit.parse("0/1s")).hasMessageContaining("got 0");
        assertThatThrownBy(() -> RateLimit.of(1, Duration.ZERO)).hasMessageContaining("period must be positive");
        assertThatThrownBy(() -> RateLimit.of(1, Duration.ofSeconds(-1))).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> RateLimit.parse("0/0s")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RateLimit.of(1, Duration.ofDays(400))).hasMessageContaining("at most 366d");
        assertThatThrownBy(() -> RateLimit.of(2_000_000, Duration.ofSeconds(1)))
                .hasMessageContaining("at most one permit per microsecond");
        assertThatThrownBy(() -> RateLimit.of(10, Duration.ofSeconds(1)).withBurst(0))
                .hasMessageContaining("burst must be at least 1 permit, got 0");
        assertThatThrownBy(() -> RateLimit.of(1, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aRequestMustFitTheBurst() {
        RateLimit rate = RateLimit.of(10, Duration.ofSeconds(1)).withBurst(4);
        assertThat(rate.check(4)).isEqualTo(4);
        assertThatThrownBy(() -> rate.check(5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits wanted (5) exceed the burst of 10/1s burst 4");
        assertThatThrownBy(() -> rate.check(0)).hasMessageContaining("at least 1, got 0");
    }

    @Test
    void decisionsSayGrantedOrHowLongUntilDue() {
        assertThat(Decision.grant().granted()).isTrue();
        assertThat(Decision.grant().retryAfter()).isZero();
        Decision no = Decision.denial(Duration.ofMillis(40));
        assertThat(no.granted()).isFalse();
        assertThat(no.retryAfter()).isEqualTo(Duration.ofMillis(40));
        assertThatThrownBy(() -> new Decision(true, Duration.ofMillis(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Decision.denial(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
    }
}
