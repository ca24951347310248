package io.coordis.spring;

import io.coordis.DurationText;
import io.coordis.ratelimit.RateLimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * Thrown by a {@link RateLimited} method whose limiter granted no permit (within its wait, when it has one): the
 * method did not run. {@link #retryAfter()} says when a permit is due, as a web layer's {@code Retry-After} wants.
 */
public final class RateLimitedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The limiter's name, as evaluated for this call (with {@code :key} for a per-key limiter). */
    private final String limiterName;
    /** How long until a permit is due, on Redis's clock. */
    private final Duration retryAfter;

    RateLimitedException(String limiterName, RateLimit limit, Duration retryAfter, Duration wait, String method) {
        super("rate limiter '" + limiterName + "' (" + limit + ") granted no permit"
                + (wait.isZero() ? "" : " within " + DurationText.format(wait)) + "; the next is due in "
                + DurationText.format(roundedUp(retryAfter)) + "; " + method + " did not run");
        this.limiterName = limiterName;
        this.retryAfter = retryAfter;
    }

    /** {@code d} rounded up to the millisecond, so that a permit due in 300 µs does not read "due in 0ms". */
    private static Duration roundedUp(Duration d) {
        Duration millis = d.truncatedTo(ChronoUnit.MILLIS);
        return millis.equals(d) ? d : millis.plusMillis(1);
    }

    /**
     * The limiter's name, as evaluated for this call: {@code name:key} for a limiter with a {@link RateLimited#key()}.
     *
     * @return the name
     */
    public String limiterName() {
        return limiterName;
    }

    /**
     * How long until a permit is due (on Redis's clock), if nobody else takes it first.
     *
     * @return the time to wait before trying again, positive
     */
    public Duration retryAfter() {
        return retryAfter;
    }
}
