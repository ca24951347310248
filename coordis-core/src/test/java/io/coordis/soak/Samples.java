package io.coordis.soak;

import java.util.Arrays;
import java.util.Locale;

/**
 * Durations measured during a soak (acquire latencies, recovery times), in nanoseconds, with nearest-rank
 * percentiles for the report. Thread-safe (every method is synchronized; the collectors are few).
 */
final class Samples {
    private long[] values = new long[1024];
    private int size;

    synchronized void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    synchronized int count() {
        return size;
    }

    /** The nearest-rank {@code p}-th percentile (0 < p <= 100), or -1 without samples. */
    synchronized long percentile(double p) {
        if (size == 0) {
            return -1;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size, rank) - 1)];
    }

    /** {@code p50 1.2 ms, p99 8.0 ms, max 12.1 ms (n=345)}, or {@code none} without samples. */
    String summary() {
        int n = count();
        if (n == 0) {
            return "none";
        }
        return "p50 " + millis(percentile(50)) + ", p99 " + millis(percentile(99)) + ", max " + millis(percentile(100))
                + " (n=" + n + ")";
    }

    static String millis(long nanos) {
        double ms = nanos / 1e6;
        return ms < 10 ? String.format(Locale.ROOT, "%.2f ms", ms) : String.format(Locale.ROOT, "%.0f ms", ms);
    }
}
