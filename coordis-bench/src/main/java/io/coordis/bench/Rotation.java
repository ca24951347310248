package io.coordis.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The order implementations run in, round by round: round 0 as listed (A B C), round 1 rotated by one
 * (B C A), round 2 by two (C A B), and so on, so that over as many rounds as there are implementations
 * each one runs in each position once, and drift on a shared machine (another job starting, a CPU getting
 * hot) does not favour whoever always goes first.
 */
final class Rotation {
    private Rotation() {
    }

    /** {@code implementations} rotated left by {@code round} places. */
    static List<String> order(List<String> implementations, int round) {
        if (round < 0) {
            throw new IllegalArgumentException("round must be 0 or more, got " + round);
        }
        int n = implementations.size();
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(implementations.get((i + round) % n));
        }
        return out;
    }
}
