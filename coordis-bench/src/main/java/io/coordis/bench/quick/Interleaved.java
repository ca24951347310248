package io.coordis.bench.quick;

import java.util.Arrays;

/**
 * How the quick loops measure: a cycle run back to back gives operations per second; cycles compared in one
 * round run in turn, in reverse order every other round, so that none always runs first (or warm); a set of
 * ratios is reported as its median with its minimum and maximum.
 */
final class Interleaved {
    private Interleaved() {
    }

    /** Runs {@code cycle} {@code ops} times back to back: operations per second. */
    static double rate(Runnable cycle, int ops) {
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            cycle.run();
        }
        return ops / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * The rates of {@code cycles} in round {@code round} (from 0): run in the given order in even rounds, in
     * reverse in odd ones; element i is the rate of {@code cycles[i]}.
     */
    static double[] round(int round, int ops, Runnable... cycles) {
        double[] rates = new double[cycles.length];
        for (int k = 0; k < cycles.length; k++) {
            int which = round % 2 == 0 ? k : cycles.length - 1 - k;
            rates[which] = rate(cycles[which], ops);
        }
        return rates;
    }

    /** {@code ratios} as {@code median (min …, max …)}, e.g. {@code 0.93 (min 0.90, max 0.97)}. */
    static String spread(double[] ratios) {
        double[] sorted = ratios.clone();
        Arrays.sort(sorted);
        return String.format("%.2f (min %.2f, max %.2f)", sorted[sorted.length / 2], sorted[0],
                sorted[sorted.length - 1]);
    }
}
