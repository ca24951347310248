package io.coordis.internal.ratelimit;

import io.coordis.internal.Keys;
import io.coordis.ratelimit.RateLimit;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * How a rate limiter is stored: one string key, {@code {name}:rate}, holding the theoretical arrival time in
 * microseconds since the epoch by Redis's clock, expiring at that time; and the arguments {@code acquire.lua} takes
 * for a limit. Public for the inspector, which reads the key through {@link #key} and {@link #theoreticalArrival};
 * applications have no need of it. Stateless.
 */
public final class RateLayout {
    /** The suffix of a limiter's key. */
    static final String SUFFIX = "rate";

    private RateLayout() {
    }

    /**
     * The key of the limiter whose name, after the key prefix, is {@code prefixed}.
     *
     * @param prefixed the limiter's name, prefix included
     * @return the key, in the name's hash slot
     */
    public static String key(String prefixed) {
        return Keys.derived(prefixed, SUFFIX);
    }

    /**
     * The theoretical arrival time a limiter's key holds, as {@code acquire.lua} reads it: microseconds since the
     * epoch, a decimal number that may have a fraction (or an exponent).
     *
     * @param stored the key's value
     * @return the time, to the nanosecond; empty when the value is no such number
     */
    public static Optional<Instant> theoreticalArrival(String stored) {
        try {
            BigInteger nanos = new BigDecimal(stored.trim()).movePointRight(3).setScale(0, RoundingMode.FLOOR)
                    .toBigIntegerExact();
            if (nanos.signum() < 0) {
                return Optional.empty();
            }
            BigInteger[] seconds = nanos.divideAndRemainder(BigInteger.valueOf(1_000_000_000));
            return Optional.of(Instant.ofEpochSecond(seconds[0].longValueExact(), seconds[1].longValue()));
        } catch (NumberFormatException | ArithmeticException | DateTimeException e) {
            return Optional.empty();
        }
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
