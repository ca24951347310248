package io.coordis.internal.lock;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * What one lock's past acquire rounds say of each node: trusted (it answered in time), failed (it failed or
 * timed out last time) or slow (it answered only after its round had stopped waiting). A round waits, after
 * its decision, for trusted nodes only, so a partitioned or crashed node costs little while a majority
 * answers at once; a slow node is waited for again on one round in {@value #SLOW_PROBE_EVERY}, so one slowed
 * for a while costs a grace now and then rather than on every round, and answering in time makes it trusted
 * again. Thread-safe.
 */
final class NodeHealth {
    /**
     * A slow node is waited for again (with the grace) on one round in this many (a power of two), so it is
     * trusted again once it keeps up.
     */
    static final int SLOW_PROBE_EVERY = 16;
    private static final int TRUSTED = 0;
    private static final int FAILED = 1;
    private static final int SLOW = 2;

    private final AtomicIntegerArray state;
    private final AtomicInteger rounds = new AtomicInteger();

    NodeHealth(int nodes) {
        this.state = new AtomicIntegerArray(nodes);
    }

    /** The nodes the next round waits for once it is decided: the trusted ones, and on a probe the slow ones. */
    boolean[] awaited() {
        boolean probe = (rounds.incrementAndGet() & (SLOW_PROBE_EVERY - 1)) == 0;
        boolean[] awaited = new boolean[state.length()];
        for (int i = 0; i < awaited.length; i++) {
            int s = state.get(i);
            awaited[i] = s == TRUSTED || (probe && s == SLOW);
        }
        return awaited;
    }

    /**
     * Node {@code i} gave its answer: {@code failed} if it failed or timed out; {@code inTime} when its round
     * still waited. A late answer leaves the node as its round marked it.
     */
    void answered(int i, boolean failed, boolean inTime) {
        if (failed) {
            state.set(i, FAILED);
        } else if (inTime) {
            state.set(i, TRUSTED);
        }
    }

    /** Node {@code i} had not answered when its round stopped waiting: later rounds stop waiting for it. */
    void late(int i) {
        state.compareAndSet(i, TRUSTED, SLOW);
    }

    /** Whether node {@code i} is trusted (for tests and reports). */
    boolean isTrusted(int i) {
        return state.get(i) == TRUSTED;
    }
}
