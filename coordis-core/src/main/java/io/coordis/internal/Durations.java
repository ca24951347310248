package io.coordis.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks for durations, with messages that state the broken condition. */
public final class Durations {
    private Durations() {
    }

    public static Duration atLeast(Duration value, Duration min, String what) {
        Objects.requireNonNull(value, what + " must not be null");
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(what + " must be at least " + format(min) + ", was " + format(value));
        }
        return value;
    }

    public static Duration notNegative(Duration value, String what) {
        Objects.requireNonNull(value, what + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, was " + format(value));
        }
        return value;
    }

    /** Nanoseconds of {@code d}, saturating at {@link Long#MAX_VALUE} instead of overflowing. */
    public static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** {@code a + b}, saturating instead of overflowing. */
    public static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** Human form: 250ms, 1.5s, 2m. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (Math.abs(ms) < 1000) {
            return ms + "ms";
        }
        if (Math.abs(ms) < 60_000) {
            return (ms % 1000 == 0 ? String.valueOf(ms / 1000) : String.format(java.util.Locale.ROOT, "%.1f", ms / 1000.0)) + "s";
        }
        return d.toSeconds() % 60 == 0 ? d.toMinutes() + "m" : d.toSeconds() + "s";
    }
}
