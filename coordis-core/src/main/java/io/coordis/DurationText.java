package io.coordis;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/** Durations as Coordis writes them in messages and {@code toString()}: {@code 250ms}, {@code 1.5s}, {@code 2m}. */
public final class DurationText {
    private DurationText() {
    }

    /**
     * Human form: 250ms, 1.5s, 2m, 3h, 30d, 90.25s (from a minute on, whole units when it is one, else seconds to
     * the millisecond); any duration, however large, without overflowing. Thread-safe.
     *
     * @param d the duration to write
     * @return the text
     */
    public static String format(Duration d) {
        long s = d.toSeconds();
        if (s > -60 && s < 60) {
            long ms = d.toMillis();
            if (Math.abs(ms) < 1000) {
                return ms + "ms";
            }
            return (ms % 1000 == 0 ? String.valueOf(ms / 1000) : String.format(Locale.ROOT, "%.1f", ms / 1000.0)) + "s";
        }
        int millis = d.getNano() / 1_000_000;
        if (millis != 0) { // to the millisecond, so that "at most 30d, was ..." never reads "30d"
            return BigDecimal.valueOf(s).add(BigDecimal.valueOf(millis, 3))
                    .stripTrailingZeros().toPlainString() + "s";
        }
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
