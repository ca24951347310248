package io.coordis.cli.view;

import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How the views write one cell: counts, numbers, durations, names of enum values, long strings shortened.
 * Thread-safe: it keeps no state.
 */
public final class Cells {
    private static final int SHOWN_CHARS = 40;

    private Cells() {
    }

    static String count(OptionalInt n) {
        return n.isPresent() ? Integer.toString(n.getAsInt()) : "-";
    }

    static String shorten(String s) {
        String flat = s.replaceAll("\\p{Cntrl}", "?");
        return flat.length() <= SHOWN_CHARS ? flat : flat.substring(0, SHOWN_CHARS - 1) + "…";
    }

    /** A token as given; {@code redacted}: a word in its place, as the dashboard shows it. */
    static String token(String token, boolean redacted) {
        return redacted ? "(redacted)" : token;
    }

    static String pid(OptionalLong pid) {
        return pid.isPresent() ? Long.toString(pid.getAsLong()) : "-";
    }

    static String number(OptionalLong n) {
        return n.isPresent() ? Long.toString(n.getAsLong()) : "-";
    }

    static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** 850ms, 4.2s, 3m05s, 2h07m, 3d04h; "-" when absent. */
    public static String time(Optional<Duration> d) {
        if (d.isEmpty()) {
            return "-";
        }
        long ms = d.get().toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3600);
    }
}
