package io.coordis.internal.lock;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static io.coordis.internal.lock.LegacyLock.FIRST_BACKOFF_NANOS;
import static io.coordis.internal.lock.LegacyLock.MAX_BACKOFF_NANOS;
import static io.coordis.internal.lock.LegacyLock.MIN_JITTER_NANOS;
import static io.coordis.internal.lock.LegacyLock.nextBackoff;
import static io.coordis.internal.lock.LegacyLock.pauseNanos;
import static org.assertj.core.api.Assertions.assertThat;

class LegacyLockTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void backoffDoublesUpToItsCap() {
        long b = FIRST_BACKOFF_NANOS;
        assertThat(b).isEqualTo(10 * MS);
        assertThat(nextBackoff(b)).isEqualTo(20 * MS);
        for (int i = 0; i < 20; i++) {
            long next = nextBackoff(b);
            assertThat(next).isGreaterThanOrEqualTo(b).isLessThanOrEqualTo(MAX_BACKOFF_NANOS);
            b = next;
        }
        assertThat(b).isEqualTo(MAX_BACKOFF_NANOS);
    }

    @Test
    void pauseIsTheBackoffPlusJitterWhenTheExpiryIsFarOrUnknown() {
        assertThat(pauseNanos(100 * MS, 60_000, 0.0)).isEqualTo(100 * MS + MIN_JITTER_NANOS);
        assertThat(pauseNanos(100 * MS, -1, 0.0)).isEqualTo(100 * MS + MIN_JITTER_NANOS);
        assertThat(pauseNanos(100 * MS, -1, 0.999)).isBetween(100 * MS + MIN_JITTER_NANOS, 150 * MS + MIN_JITTER_NANOS);
    }

    @Test
    void pauseEndsWhereTheStoredExpiryPassesPlusJitter() {
        assertThat(pauseNanos(500 * MS, 30, 0.0)).isEqualTo(30 * MS + MIN_JITTER_NANOS);
        assertThat(pauseNanos(500 * MS, 0, 0.0)).isEqualTo(MIN_JITTER_NANOS);
        assertThat(pauseNanos(500 * MS, 0, 0.5)).isEqualTo(MIN_JITTER_NANOS + 125 * MS);
    }

    @Test
    void jitterSpreadsCompetingClientsButStaysBounded() {
        long low = pauseNanos(200 * MS, -1, 0.0);
        long high = pauseNanos(200 * MS, -1, 0.999_999);
        assertThat(high - low).isBetween(99 * MS, 100 * MS);
    }

    @Test
    void anExpiryCenturiesAwayDoesNotOverflow() {
        assertThat(pauseNanos(MAX_BACKOFF_NANOS, Long.MAX_VALUE / 2, 0.0)).isEqualTo(MAX_BACKOFF_NANOS + MIN_JITTER_NANOS);
    }
}
