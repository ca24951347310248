package io.coordis.spring;

import io.coordis.election.Leadership;
import io.coordis.lock.Lease;

import java.util.Optional;

/**
 * What the running {@link Locked} or {@link LeaderOnly} method holds, for the thread running it: the lease and
 * its fencing number, the leadership and its term. Empty outside such a method (and on threads the method
 * starts itself). When a {@code @Locked} method calls another, the inner one's lease is current until it returns.
 */
public final class CoordisContext {
    private static final ThreadLocal<Lease> LEASE = new ThreadLocal<>();
    private static final ThreadLocal<Leadership> LEADERSHIP = new ThreadLocal<>();

    private CoordisContext() {
    }

    /** The lease of the innermost running {@link Locked} method on this thread. */
    public static Optional<Lease> currentLease() {
        return Optional.ofNullable(LEASE.get());
    }

    /**
     * The fencing number of the innermost running {@link Locked} method's lease.
     *
     * @throws IllegalStateException outside a {@code @Locked} method
     */
    public static long fencingToken() {
        Lease lease = LEASE.get();
        if (lease == null) {
            throw new IllegalStateException("no @Locked method is running on this thread: call fencingToken() "
                    + "from inside one (on the thread that runs it), or use currentLease() to test for one");
        }
        return lease.fencingToken();
    }

    /** The leadership of the innermost running {@link LeaderOnly} method on this thread. */
    public static Optional<Leadership> currentLeadership() {
        return Optional.ofNullable(LEADERSHIP.get());
    }

    /**
     * The term of the innermost running {@link LeaderOnly} method's leadership.
     *
     * @throws IllegalStateException outside a {@code @LeaderOnly} method
     */
    public static long term() {
        Leadership leadership = LEADERSHIP.get();
        if (leadership == null) {
            throw new IllegalStateException("no @LeaderOnly method is running on this thread: call term() from "
                    + "inside one (on the thread that runs it), or use currentLeadership() to test for one");
        }
        return leadership.term();
    }

    /** Makes {@code lease} current until the returned scope closes, then restores the previous one. */
    static Scope enter(Lease lease) {
        Lease previous = LEASE.get();
        LEASE.set(lease);
        return () -> restore(LEASE, previous);
    }

    static Scope enter(Leadership leadership) {
        Leadership previous = LEADERSHIP.get();
        LEADERSHIP.set(leadership);
        return () -> restore(LEADERSHIP, previous);
    }

    private static <T> void restore(ThreadLocal<T> local, T previous) {
        if (previous == null) {
            local.remove();
        } else {
            local.set(previous);
        }
    }

    /** Ends what {@link #enter} made current. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}
