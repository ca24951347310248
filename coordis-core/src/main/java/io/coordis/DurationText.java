package io.coordis;

import io.coordis.internal.Durations;

import java.time.Duration;

/** Durations as Coordis writes them in messages and {@code toString()}: {@code 250ms}, {@code 1.5s}, {@code 2m}. */
public final class DurationText {
    private DurationText() {
    }

    /**
     * Human form: 250ms, 1.5s, 2m, 3h, 30d, 90.25s (from a minute on, whole units when it is one, else seconds to
     * the millisecond); any duration, however large, without overflowing. Thread-safe.
     *
     * @param duration the duration to write
     * @return the text
     */
    public static String format(Duration duration) {
        return Durations.format(duration);
    }
}
