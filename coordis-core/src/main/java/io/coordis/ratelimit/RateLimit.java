package io.coordis.ratelimit;

import io.coordis.DurationText;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rate: {@link #permits()} permits per {@link #period()}, spread evenly (one every {@link #interval()}), with up to
 * {@link #burst()} granted at once by a limiter that was idle long enough. Over any stretch of time {@code t} a limiter
 * grants at most {@code burst + t / interval} permits. The burst defaults to the permit count: {@code 10/1s} grants
 * 10 at once after a quiet second, then one every 100 ms. Immutable and thread-safe.
 *
 * <pre>{@code
 * RateLimit.of(100, Duration.ofMinutes(1)).withBurst(5);   // 100 a minute, at most 5 at once
 * RateLimit.parse("10/1s");                                // as the command line writes it
 * }</pre>
 */
public final class RateLimit {
    /** The shortest interval between two permits: the limiter counts time in microseconds. */
    public static final Duration MIN_INTERVAL = Duration.ofNanos(1_000);
    /** The longest period: a limiter's key lives at most {@code burst} periods. */
    public static final Duration MAX_PERIOD = Duration.ofDays(366);

    private static final Pattern TEXT = Pattern.compile("(\\d+)\\s*/\\s*(\\d+(?:\\.\\d+)?)?\\s*(ms|s|m|h|d)");

    private final int permits;
    private final Duration period;
    private final int burst;

    private RateLimit(int permits, Duration period, int burst) {
        this.permits = permits;
        this.period = period;
        this.burst = burst;
    }

    /**
     * {@code permits} per {@code period}, with a burst of {@code permits}.
     *
     * @param permits how many permits each period grants, at least 1
     * @param period  the period, positive and at most {@link #MAX_PERIOD}
     * @return the rate
     * @throws IllegalArgumentException when {@code permits} is below 1, the period is not positive or too long, or
     *                                  the interval {@code period / permits} is below {@link #MIN_INTERVAL}
     */
    public static RateLimit of(int permits, Duration period) {
        Objects.requireNonNull(period, "rate limit period must not be null");
        if (permits < 1) {
            throw new IllegalArgumentException("a rate limit grants at least 1 permit per period, got " + permits);
        }
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("a rate limit's period must be positive, got " + period);
        }
        if (period.compareTo(MAX_PERIOD) > 0) {
            throw new IllegalArgumentException("a rate limit's period must be at most " + DurationText.format(MAX_PERIOD)
                    + ", got " + DurationText.format(period));
        }
        if (period.dividedBy(permits).compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("a rate limit grants at most one permit per microsecond, but " + permits
                    + "/" + DurationText.format(period) + " asks for more");
        }
        return new RateLimit(permits, period, permits);
    }

    /**
     * Reads the command line's form {@code PERMITS/PERIOD}: {@code 10/1s}, {@code 100/1m}, {@code 5/250ms},
     * {@code 3/h} (a missing amount is 1); units {@code ms}, {@code s}, {@code m}, {@code h}, {@code d}.
     *
     * @param text the rate as text
     * @return the rate, with a burst of its permit count
     * @throws IllegalArgumentException when the text is not of that form, or {@link #of} refuses the numbers
     */
    public static RateLimit parse(String text) {
        Objects.requireNonNull(text, "rate limit text must not be null");
        Matcher m = TEXT.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("rate limit '" + text + "' is not of the form PERMITS/PERIOD, "
                    + "e.g. 10/1s, 100/1m or 5/250ms");
        }
        int permits;
        try {
            permits = Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("rate limit '" + text + "' has too many permits: at most "
                    + Integer.MAX_VALUE);
        }
        double amount = m.group(2) == null ? 1 : Double.parseDouble(m.group(2));
        long unitNanos = switch (m.group(3)) {
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> 86_400_000_000_000L;
        };
        double nanos = amount * unitNanos;
        if (nanos > MAX_PERIOD.toNanos()) {
            throw new IllegalArgumentException("a rate limit's period must be at most "
                    + DurationText.format(MAX_PERIOD) + ", got '" + text + "'");
        }
        return of(permits, Duration.ofNanos(Math.round(nanos)));
    }

    /**
     * This rate with another burst: how many permits an idle limiter grants at once, and the most one request may
     * ask for. A burst of 1 spaces every permit by the interval.
     *
     * @param burst the burst, at least 1
     * @return a new rate
     * @throws IllegalArgumentException when {@code burst} is below 1, or the burst spans more than {@link #MAX_PERIOD}
     */
    public RateLimit withBurst(int burst) {
        if (burst < 1) {
            throw new IllegalArgumentException("a rate limit's burst must be at least 1 permit, got " + burst);
        }
        if (interval().multipliedBy(burst).compareTo(MAX_PERIOD) > 0) {
            throw new IllegalArgumentException("a burst of " + burst + " at " + this + " spans more than "
                    + DurationText.format(MAX_PERIOD));
        }
        return new RateLimit(permits, period, burst);
    }

    /**
     * How many permits each period grants.
     *
     * @return the permit count, at least 1
     */
    public int permits() {
        return permits;
    }

    /**
     * The period over which {@link #permits()} are granted.
     *
     * @return the period, positive
     */
    public Duration period() {
        return period;
    }

    /**
     * The most permits granted at once, and the most one request may ask for; the permit count unless set.
     *
     * @return the burst, at least 1
     */
    public int burst() {
        return burst;
    }

    /**
     * The time between two permits at the steady rate: {@code period / permits}, to the nanosecond.
     *
     * @return the interval, at least {@link #MIN_INTERVAL}
     */
    public Duration interval() {
        return period.dividedBy(permits);
    }

    /**
     * Checks the size of one request against this rate.
     *
     * @param wanted how many permits a request asks for
     * @return {@code wanted}
     * @throws IllegalArgumentException when {@code wanted} is below 1 or above {@link #burst()}, which could never
     *                                  be granted
     */
    public int check(int wanted) {
        if (wanted < 1) {
            throw new IllegalArgumentException("permits wanted must be at least 1, got " + wanted);
        }
        if (wanted > burst) {
            throw new IllegalArgumentException("permits wanted (" + wanted + ") exceed the burst of " + this
                    + ": such a request could never be granted");
        }
        return wanted;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RateLimit r && r.permits == permits && r.period.equals(period) && r.burst == burst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(permits, period, burst);
    }

    /** {@code 10/1s}, or {@code 10/1s burst 20} when the burst is not the permit count. */
    @Override
    public String toString() {
        String rate = permits + "/" + DurationText.format(period);
        return burst == permits ? rate : rate + " burst " + burst;
    }
}
