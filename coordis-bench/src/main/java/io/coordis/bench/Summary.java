package io.coordis.bench;

import java.util.Arrays;

/**
 * Median and range of one figure over rounds. Missing rounds (NaN) are left out; {@link #count()} says
 * how many remained. With none, every field is NaN.
 */
record Summary(double median, double min, double max, int count) {

    static Summary of(double... values) {
        double[] v = Arrays.stream(values).filter(d -> !Double.isNaN(d)).sorted().toArray();
        if (v.length == 0) {
            return new Summary(Double.NaN, Double.NaN, Double.NaN, 0);
        }
        int mid = v.length / 2;
        double median = v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
        return new Summary(median, v[0], v[v.length - 1], v.length);
    }

    /**
     * Per-round quotients {@code a[r] / b[r]}, NaN where either is missing or {@code b[r]} is zero: ratios
     * are formed within a round (both measured in the same stretch of machine weather), never from two
     * medians.
     */
    static double[] quotients(double[] a, double[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("rounds differ: " + a.length + " and " + b.length);
        }
        double[] q = new double[a.length];
        for (int r = 0; r < a.length; r++) {
            q[r] = Double.isNaN(a[r]) || Double.isNaN(b[r]) || b[r] == 0 ? Double.NaN : a[r] / b[r];
        }
        return q;
    }

    boolean isEmpty() {
        return count == 0;
    }
}
