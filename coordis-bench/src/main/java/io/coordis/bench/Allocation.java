package io.coordis.bench;

import java.lang.management.ManagementFactory;

/**
 * Heap bytes allocated so far by every live thread of this JVM (the workload's threads, Lettuce's I/O threads,
 * the clients' timers), read from the JVM's per-thread counters. Taken before and after a measured window, the
 * difference is what the window allocated; a thread that ends inside the window takes its share with it, which a
 * steady workload does not do. Thread-safe (the counters are the JVM's).
 */
public final class Allocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocation() {
    }

    /**
     * The bytes allocated so far by all live threads.
     *
     * @return the sum of the live threads' allocated-bytes counters
     */
    public static long allocatedBytes() {
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            sum += Math.max(0, bytes);
        }
        return sum;
    }
}
