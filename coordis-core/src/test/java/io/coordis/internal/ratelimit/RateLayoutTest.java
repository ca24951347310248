package io.coordis.internal.ratelimit;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The stored arrival time read back as {@code acquire.lua} writes it, and what is not one. */
class RateLayoutTest {
    @Test
    void theArrivalTimeIsReadToTheNanosecondInEveryFormTheScriptWrites() {
        assertThat(RateLayout.theoreticalArrival("1764460927123456"))
                .contains(Instant.ofEpochSecond(1_764_460_927L, 123_456_000));
        assertThat(RateLayout.theoreticalArrival("1764460927123456.25"))
                .contains(Instant.ofEpochSecond(1_764_460_927L, 123_456_250));
        assertThat(RateLayout.theoreticalArrival("1.5e15")).contains(Instant.ofEpochSecond(1_500_000_000L));
        assertThat(RateLayout.theoreticalArrival(" 0 ")).contains(Instant.EPOCH);
    }

    @Test
    void anythingElseIsNoArrivalTime() {
        for (String stored : new String[] {"", "soon", "-1", "1e40", "NaN", "0x10"}) {
            assertThat(RateLayout.theoreticalArrival(stored)).as(stored).isEmpty();
        }
    }
}
