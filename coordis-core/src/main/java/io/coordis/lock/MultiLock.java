package io.coordis.lock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Several locks taken as one: all names or none, under one lease ({@link MultiLease}). Each name is an ordinary
 * lock: its key holds the lease's token, with the name's own fencing counter and holder details, so other clients,
 * {@code coordis ls} and {@code inspect} see every name as held, and a plain {@link DistributedLock} on one of the
 * names waits for the multi-lock. Nothing is taken while any name is busy; names are given back and waited for, so
 * two multi-locks over the same names in any order never deadlock.
 *
 * <p>Waiting is the same as a {@link DistributedLock}'s: a release of a busy name wakes the waiter, and a call that
 * waits rides out failures of Redis within its budget. Thread-safe; one instance may be used by many threads.
 */
public interface MultiLock {

    /**
     * The names as the caller gave them, in that order.
     *
     * @return the names
     */
    List<String> names();

    /**
     * Takes every name if all are free now, without waiting.
     *
     * @return the lease, or empty when some name is held by someone else
     * @throws io.coordis.CoordisException when Redis could not be reached, naming the lock
     */
    Optional<MultiLease> tryAcquire();

    /**
     * Takes every name, waiting up to {@code wait} for busy ones to be released.
     *
     * @param wait how long to wait at most
     * @return the lease, or empty when the names were not all free within {@code wait}
     * @throws InterruptedException        when interrupted while waiting; nothing is held then
     * @throws io.coordis.CoordisException when Redis could not be reached within the wait, naming the lock
     */
    Optional<MultiLease> acquire(Duration wait) throws InterruptedException;

    /**
     * Takes every name, waiting as long as it takes.
     *
     * @return the lease
     * @throws InterruptedException        when interrupted while waiting; nothing is held then
     * @throws io.coordis.CoordisException as {@link #acquire(Duration)}
     */
    MultiLease acquire() throws InterruptedException;

    /**
     * {@link #tryAcquire()} without blocking, as {@link DistributedLock#tryAcquireAsync()}: completed on the client's
     * callback executor once Redis answered; cancelling it leaves nothing behind.
     *
     * @return a future of the lease, or of empty when some name is held by someone else
     */
    CompletableFuture<Optional<MultiLease>> tryAcquireAsync();

    /**
     * {@link #acquire(Duration)} without a thread, as {@link DistributedLock#acquireAsync(Duration)}: the tries and
     * the pauses between them are callbacks; cancelling the future ends the wait and leaves nothing behind.
     *
     * @param wait how long to wait; {@link Duration#ZERO} behaves like {@link #tryAcquireAsync()}
     * @return a future of the lease, or of empty when the wait ran out
     */
    CompletableFuture<Optional<MultiLease>> acquireAsync(Duration wait);

    /**
     * {@link #acquire()} without a thread: the future completes with the lease once every name is taken, however long
     * that takes; cancelling it ends the wait, as for {@link #acquireAsync(Duration)}.
     *
     * @return a future of the lease
     */
    CompletableFuture<MultiLease> acquireAsync();
}
