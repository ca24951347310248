package io.coordis.bench.quick;

import io.coordis.bench.Allocation;
import io.coordis.lock.DistributedLock;

import java.util.Arrays;

/**
 * Bytes allocated per uncontended acquire+release, by every thread of the JVM (the caller, Lettuce's I/O
 * threads, the client's timer), for Coordis and for the same cycle in raw Lettuce commands, interleaved on one
 * redis-server. Not a benchmark suite: a first look at what a cycle costs the heap. Run with
 * {@code coordis-bench/run quick QuickLockAllocation [cycles] [rounds]}.
 */
public final class QuickLockAllocation {
    public static void main(String[] args) {
        int cycles = QuickRun.arg(args, 0, 20_000);
        int rounds = QuickRun.arg(args, 1, 5);
        try (QuickRun quick = QuickRun.start()) {
            DistributedLock lock = quick.coordis.lock("quick:coordis");
            Runnable coordisCycle = () -> lock.tryAcquire().orElseThrow().close();
            Runnable rawCycle = RawLock.cycle(quick.raw, () -> "quick:raw");
            perCycle(coordisCycle, cycles);
            perCycle(rawCycle, cycles);
            double[] coordis = new double[rounds];
            double[] raw = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                coordis[r] = perCycle(coordisCycle, cycles);
                raw[r] = perCycle(rawCycle, cycles);
                System.out.printf("round %d: coordis %.0f B/cycle, raw lettuce %.0f B/cycle%n", r + 1, coordis[r], raw[r]);
            }
            System.out.printf("median bytes per cycle: coordis %.0f, raw lettuce %.0f%n", median(coordis), median(raw));
        }
    }

    /** Bytes allocated by all live threads per run of {@code cycle}, over {@code cycles} runs. */
    private static double perCycle(Runnable cycle, int cycles) {
        long before = Allocation.allocatedBytes();
        for (int i = 0; i < cycles; i++) {
            cycle.run();
        }
        return (Allocation.allocatedBytes() - before) / (double) cycles;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
