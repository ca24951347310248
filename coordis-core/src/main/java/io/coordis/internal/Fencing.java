package io.coordis.internal;

import java.time.Duration;

/**
 * How long a fencing (or term) counter is kept after it last gave a number, for the options of every primitive that
 * takes such numbers; the numbers themselves are taken in the scripts ({@code fencing.lua}).
 */
public final class Fencing {
    /** Unless set otherwise: 10 minutes, so a clock stepping back by less cannot make numbers go back. */
    public static final Duration DEFAULT_RETENTION = Duration.ofMinutes(10);
    /** The shortest retention accepted. */
    public static final Duration MIN_RETENTION = Duration.ofSeconds(1);
    /** The longest retention accepted: nothing a name leaves outlives a day. */
    public static final Duration MAX_RETENTION = Duration.ofDays(1);

    private Fencing() {
    }

    /**
     * @throws IllegalArgumentException naming the bounds when {@code retention} lies outside them
     */
    public static Duration checkRetention(Duration retention) {
        return Durations.between(retention, MIN_RETENTION, MAX_RETENTION, "counter retention");
    }
}
