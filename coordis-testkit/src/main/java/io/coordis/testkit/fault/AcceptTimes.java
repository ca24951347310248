package io.coordis.testkit.fault;

import java.util.Arrays;

/**
 * The {@link System#nanoTime()} of every write a {@link FencedResource} accepted, in order, so that it can tell how
 * soon work resumed after a given moment.
 *
 * <p>Not thread-safe: the resource calls it under its own lock.
 */
final class AcceptTimes {
    private long[] times = new long[1024];
    private int count;

    void add(long nanos) {
        if (count == times.length) {
            times = Arrays.copyOf(times, count * 2);
        }
        times[count++] = nanos;
    }

    /** The last time added, or -1 if none. */
    long last() {
        return count == 0 ? -1 : times[count - 1];
    }

    /** The first time at or after {@code nanos}, or -1 if none (a binary search: times only grow). */
    long firstAtOrAfter(long nanos) {
        int lo = 0;
        int hi = count;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (times[mid] < nanos) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < count ? times[lo] : -1;
    }
}
