package io.coordis.internal.ratelimit;

import io.coordis.internal.Keys;
import io.coordis.ratelimit.RateLimit;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * How a rate limiter is stored: one string key, {@code {name}:rate}, holding the theoretical arrival time in
 * microseconds since the epoch by Redis's clock, expiring at that time; and the arguments {@code acquire.lua} takes
 * for a limit. Stateless.
 */
final class RateLayout {
    /** The suffix of a limiter's key. */
    static final String SUFFIX = "rate";

    private RateLayout() {
    }

    /** The key of the limiter whose name, after the key prefix, is {@code prefixed}. */
    static String key(String prefixed) {
        return Keys.derived(prefixed, SUFFIX);
    }

    /**
     * The script's arguments for {@code wanted} permits of {@code limit}, reserving up to {@code reserveMicros}:
     * the interval in microseconds (exact, with a fraction when it has one), the burst, the permits, the reserve.
     */
    static List<String> args(RateLimit limit, int wanted, long reserveMicros) {
        return List.of(intervalMicros(limit), Integer.toString(limit.burst()), Integer.toString(wanted),
                Long.toString(reserveMicros));
    }

    /** {@code period / permits} in microseconds, as plain decimal text. */
    static String intervalMicros(RateLimit limit) {
        BigDecimal nanos = BigDecimal.valueOf(limit.period().toNanos())
                .divide(BigDecimal.valueOf(limit.permits()), 3, RoundingMode.HALF_EVEN);
        return nanos.movePointLeft(3).stripTrailingZeros().toPlainString();
    }
}
