package io.coordis.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

/**
 * The sizes of the soak runs, from system properties (Maven passes {@code -D} options on to the test JVM):
 * <ul>
 *   <li>{@code soak.minutes} (default 60): how long the nemesis runs against the lock and the election
 *       ({@link LockSoak});</li>
 *   <li>{@code soak.signal.minutes} (default 15): how long signals are sent through faults ({@link SignalSoak});</li>
 *   <li>{@code soak.messages} (default 2,000,000): messages through the reliable queue ({@link QueueSoak});</li>
 *   <li>{@code soak.failovers} (default 20): Sentinel failovers ({@link SentinelFailoverSoak});</li>
 *   <li>{@code soak.combined.minutes} (default 60): how long every workload runs at once ({@link CombinedSoak});</li>
 *   <li>{@code soak.combined.messages} (default 10,000,000): the most messages the combined run pushes;</li>
 *   <li>{@code soak.ratelimit.seconds} (default 60): how long skewed clients ask one rate limiter
 *       ({@link RateLimiterSoak});</li>
 *   <li>{@code soak.seed}: the seed of every random choice of a run (faults, victims, pauses); without it
 *       each run draws one and prints it, so that run can be replayed (the same schedule of choices; the
 *       timing of the machine still differs);</li>
 *   <li>{@code soak.report} (set by the {@code soak} profile): the report file, by default
 *       {@code target/soak-report.md} of the working directory.</li>
 * </ul>
 * A value that is not a positive number is refused with a message naming the property.
 */
final class SoakSettings {
    private SoakSettings() {
    }

    static Duration lockDuration() {
        return Duration.ofSeconds(Math.round(positive("soak.minutes", 60) * 60));
    }

    static Duration signalDuration() {
        return Duration.ofSeconds(Math.round(positive("soak.signal.minutes", 15) * 60));
    }

    static int messages() {
        return (int) positive("soak.messages", 2_000_000);
    }

    static int failovers() {
        return (int) positive("soak.failovers", 20);
    }

    static Duration combinedDuration() {
        return Duration.ofSeconds(Math.round(positive("soak.combined.minutes", 60) * 60));
    }

    static int combinedMessages() {
        return (int) positive("soak.combined.messages", 10_000_000);
    }

    static int rateLimiterSeconds() {
        return (int) Math.round(positive("soak.ratelimit.seconds", 60));
    }

    static Path reportFile() {
        String p = System.getProperty("soak.report");
        return p != null && !p.isBlank() ? Path.of(p.trim()) : Path.of("target", "soak-report.md");
    }

    /**
     * The run's seed ({@code soak.seed}, else {@code coordis.nemesis.seed}, which the nemesis names in its own
     * line, else a fresh one), printed with how to replay it.
     */
    static long seed(String run) {
        String s = System.getProperty("soak.seed");
        if (s == null || s.isBlank()) {
            s = System.getProperty("coordis.nemesis.seed");
        }
        long seed = s != null && !s.isBlank() ? Long.parseLong(s.trim()) : new Random().nextLong();
        System.out.println(run + " seed=" + seed + " (replay with -Dsoak.seed=" + seed + ")");
        return seed;
    }

    private static double positive(String property, double fallback) {
        String s = System.getProperty(property);
        if (s == null || s.isBlank()) {
            return fallback;
        }
        double v;
        try {
            v = Double.parseDouble(s.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a positive number, got '" + s + "'", e);
        }
        if (!(v > 0)) {
            throw new IllegalArgumentException(property + " must be a positive number, got '" + s + "'");
        }
        return v;
    }
}
