package io.coordis.ratelimit;

import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link RateLimiter} answered a try: the permits were granted, or they were not and would be due after
 * {@code retryAfter} (on Redis's clock, if nobody else takes them first). Immutable.
 *
 * @param granted    whether the permits were granted (and counted)
 * @param retryAfter zero when granted; otherwise how long until the same request would be granted
 */
public record Decision(boolean granted, Duration retryAfter) {
    private static final Decision GRANTED = new Decision(true, Duration.ZERO);

    /**
     * Checks the pair.
     *
     * @param granted    whether the permits were granted
     * @param retryAfter zero when granted; otherwise how long until the same request would be granted
     * @throws IllegalArgumentException when {@code retryAfter} is negative, or not zero for a grant
     */
    public Decision {
        Objects.requireNonNull(retryAfter, "retryAfter must not be null");
        if (retryAfter.isNegative() || (granted && !retryAfter.isZero())) {
            throw new IllegalArgumentException("a decision's retryAfter must be zero for a grant and not negative, got "
                    + retryAfter + " (granted: " + granted + ")");
        }
    }

    /**
     * A grant.
     *
     * @return the decision that granted the permits
     */
    public static Decision grant() {
        return GRANTED;
    }

    /**
     * A denial, due after {@code retryAfter}.
     *
     * @param retryAfter how long until the same request would be granted
     * @return the decision that granted nothing
     */
    public static Decision denial(Duration retryAfter) {
        return new Decision(false, retryAfter);
    }
}
