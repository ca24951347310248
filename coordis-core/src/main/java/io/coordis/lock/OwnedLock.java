package io.coordis.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

/**
 * The {@link Lock} view of a {@link DistributedLock} ({@link DistributedLock#asLock()}): owned by the thread that
 * locked it, reentrant for that thread, released when the hold count returns to zero; {@code newCondition()} is
 * not supported. The lease underneath renews itself while held. Thread-safe: keep one view per lock and share it.
 *
 * <p>Beyond {@link Lock}, it shows the calling thread's lease (fencing number, loss signal), acquires through the
 * same lock made with other options (a TTL of its own), and tells at the last unlock whether the lock had been
 * lost while held.
 */
public interface OwnedLock extends Lock {

    /**
     * The lease of the calling thread's hold; empty when the calling thread does not hold this lock.
     *
     * @return the lease, or empty when this thread does not hold the lock
     */
    Optional<Lease> lease();

    /**
     * Like {@link #lock()}, but a first acquisition goes through {@code via}: the same lock (the same key) made
     * with other options, for example a TTL of its own. A reentrant lock keeps the lease it has.
     * Not interruptible, as {@link #lock()}.
     *
     * @param via the same lock made with other options, used for a first acquisition
     * @throws IllegalArgumentException when {@code via} locks another key
     */
    void lock(DistributedLock via);

    /**
     * Like {@link #tryLock(long, java.util.concurrent.TimeUnit)}, but a first acquisition goes through {@code via}
     * (see {@link #lock(DistributedLock)}).
     *
     * @param via  the same lock made with other options, used for a first acquisition
     * @param wait how long to wait
     * @return {@code true} when the calling thread holds the lock, {@code false} when the wait ran out
     * @throws InterruptedException     when interrupted while waiting; nothing is left held
     * @throws IllegalArgumentException when {@code via} locks another key
     */
    boolean tryLock(DistributedLock via, Duration wait) throws InterruptedException;

    /**
     * Unlocks as {@link #unlock()} does, and tells whether the lock was still this thread's: {@code false} when
     * this call ended the hold and found the lease lost (it expired, was deleted or was taken over, so whatever it
     * protected may have been touched by another holder meanwhile); {@code true} otherwise, including a call that
     * only lowered the hold count.
     *
     * @return {@code true} when the lock was still this thread's
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws io.coordis.CoordisException   when Redis could not be reached to release (the lock then expires by its
     *                                      TTL); the calling thread holds it no longer
     */
    boolean checkedUnlock();
}
