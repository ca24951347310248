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

    /**
     * The lease of the innermost running {@link Locked} method on this thread.
     *
     * @return the lease, or empty outside a {@code @Locked} method
     */
    public static Optional<Lease> currentLease() {
        return Optional.ofNullable(LEASE.get());
    }

    /**
     * The fencing number of the innermost running {@link Locked} method's lease.
     *
     * @return the fencing number
     * @throws IllegalStateException outside a {@code @Locked} method
     */
    public static long fencingToken() {
        return required(LEASE, "@Locked", "fencingToken()", "currentLease()").fencingToken();
    }

    /**
     * The leadership of the innermost running {@link LeaderOnly} method on this thread.
     *
     * @return the leadership, or empty outside a {@code @LeaderOnly} method
     */
    public static Optional<Leadership> currentLeadership() {
        return Optional.ofNullable(LEADERSHIP.get());
    }

    /**
     * The term of the innermost running {@link LeaderOnly} method's leadership.
     *
     * @return the term
     * @throws IllegalStateException outside a {@code @LeaderOnly} method
     */
    public static long term() {
        return required(LEADERSHIP, "@LeaderOnly", "term()", "currentLeadership()").term();
    }

    private static <T> T required(ThreadLocal<T> local, String annotation, String call, String test) {
        T value = local.get();
        if (value == null) {
            throw new IllegalStateException("no " + annotation + " method is running on this thread: call " + call
                    + " from inside one (on the thread that runs it), or use " + test + " to test for one");
        }
        return value;
    }

    /** Makes {@code lease} current until the returned scope closes, then restores the previous one. */
    static Scope enter(Lease lease) {
        return enter(LEASE, lease);
    }

    static Scope enter(Leadership leadership) {
        return enter(LEADERSHIP, leadership);
    }

    private static <T> Scope enter(ThreadLocal<T> local, T value) {
        T previous = local.get();
        local.set(value);
        return () -> restore(local, previous);
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
