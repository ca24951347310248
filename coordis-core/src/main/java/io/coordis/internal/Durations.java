package io.coordis.internal;

import io.coordis.DurationText;

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

    /**
     * {@code value} when {@code min ≤ value ≤ max}.
     *
     * @throws IllegalArgumentException naming the broken bound and the value
     */
    public static Duration between(Duration value, Duration min, Duration max, String what) {
        atLeast(value, min, what);
        if (value.compareTo(max) > 0) {
            throw new IllegalArgumentException(what + " must be at most " + format(max) + ", was " + format(value));
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

    /** {@code d} as scripts take a duration: whole milliseconds, in decimal. */
    public static String millis(Duration d) {
        return Long.toString(d.toMillis());
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

    /**
     * Human form: 250ms, 1.5s, 2m, 3h, 30d, 90.25s (from a minute on, whole units when it is one, else seconds to
     * the millisecond); any duration, however large, without overflowing.
     */
    public static String format(Duration d) {
        return DurationText.format(d);
    }
}
