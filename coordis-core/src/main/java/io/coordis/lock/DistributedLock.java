package io.coordis.lock;

import io.coordis.CoordisException;
import io.coordis.NodeVote;
import io.coordis.internal.Failures;
import io.coordis.internal.lease.LossScope;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * A lock shared by processes through Redis. Ownership is a value — the {@link Lease} an acquisition
 * returns — not the calling thread, so a lease may be released from any thread or executor.
 *
 * <p>Within one {@code Coordis} client, callers that want the same lock queue locally in arrival order,
 * so only one of them competes at Redis at a time and no local waiter starves. A local caller keeps its
 * place until it closes its lease, even a lost one: always close leases (try-with-resources).
 *
 * <p>With the default lock, a release while other local callers wait in line hands the lock straight to
 * the next of them in one script call (a new token, a new fencing number, new holder details, a fresh TTL
 * — the same as a release followed by an acquire, without the second round trip). Fairness to other
 * processes is kept by bounds: after two hand-offs in a row, a release gives the lock back to Redis
 * (and wakes them) whenever another Coordis client has marked that it waits, and the next local caller
 * pauses 2–10 ms before trying again; after 100 ms of hand-offs in a row it goes back to Redis in any case,
 * with the same pause, for clients in other languages that wait without marking (unless
 * {@link LockOptions#withYieldToPollers} turned that off). A hand-off whose waiter gave up is released.
 *
 * <p>A busy answer marks that somebody waits (the key {@code {name}:released}, named like the release
 * channel, expiring a little after the holder's TTL); a release publishes only when that mark is present.
 *
 * <p>Between processes, the default lock ({@code Coordis.lock}) waits without polling: a release by
 * Coordis wakes waiters through pub/sub, and waiters also wake when the holder's remaining TTL runs out
 * (clients in other languages release without notifying). The legacy lock polls with a backoff, since
 * the clients it shares the key with announce nothing.
 *
 * <p>Instances are thread-safe and cheap; they hold no Redis state between calls.
 *
 * <p>Failures of Redis itself (down, too slow, wrong credentials, a key of the wrong type) are thrown as
 * {@link io.coordis.CoordisException}s; "busy" and "timed out" are return values.
 */
public interface DistributedLock {

    /**
     * The resource name as the caller gave it.
     *
     * @return the name
     */
    String name();

    /**
     * The Redis key that holds the lock: the explicit prefix (if any) followed by the name.
     *
     * @return the key, prefix included
     */
    String key();

    /**
     * Acquires the lock if it is free right now, without waiting.
     *
     * @return the lease, or empty when another holder (in any process) has the lock
     */
    Optional<Lease> tryAcquire();

    /**
     * Acquires the lock, waiting up to {@code wait} for it to become free.
     *
     * @param wait how long to wait; {@link Duration#ZERO} behaves like {@link #tryAcquire()}
     * @return the lease, or empty when the wait ran out; nothing is left behind in Redis in that case
     * @throws InterruptedException when the thread is interrupted while waiting; nothing is left behind
     */
    Optional<Lease> acquire(Duration wait) throws InterruptedException;

    /**
     * Acquires the lock, waiting as long as it takes.
     *
     * @return the lease; close it to release
     * @throws InterruptedException when the thread is interrupted while waiting; nothing is left behind
     */
    Lease acquire() throws InterruptedException;

    /**
     * {@link #tryAcquire()} without blocking: the future completes with the lease, or empty when another holder has
     * the lock, once Redis answered. Cancelling it (before it completed) leaves nothing behind: a lease granted at
     * that instant is released at once.
     *
     * <p>The future is completed on the client's callback executor
     * ({@link io.coordis.Coordis.Builder#callbackExecutor}), never on a thread the client needs, so a dependent stage
     * that blocks holds up no renewal or reply. A failure of Redis completes it
     * exceptionally with the {@link io.coordis.CoordisException} {@link #tryAcquire()} would throw, naming the lock.
     *
     * @return a future of the lease, or of empty when the lock is busy
     */
    CompletableFuture<Optional<Lease>> tryAcquireAsync();

    /**
     * {@link #acquire(Duration)} without a thread: the future completes with the lease, or empty when the wait ran
     * out. No thread waits meanwhile: the place in the local queue, the tries and the pauses between them
     * (release notifications, the holder's TTL) are all callbacks. Cancelling the future ends the wait and leaves
     * nothing behind: the local place goes to the next caller, a lease granted at that instant is released at once.
     * Completion, thread and failures as for {@link #tryAcquireAsync()}.
     *
     * @param wait how long to wait; {@link Duration#ZERO} behaves like {@link #tryAcquireAsync()}
     * @return a future of the lease, or of empty when the wait ran out
     */
    CompletableFuture<Optional<Lease>> acquireAsync(Duration wait);

    /**
     * {@link #acquire()} without a thread: the future completes with the lease once granted, however long that
     * takes. Cancelling it ends the wait, as for {@link #acquireAsync(Duration)}.
     *
     * @return a future of the lease
     */
    CompletableFuture<Lease> acquireAsync();

    /**
     * How each node voted in the most recent attempt made through this object, by any thread: the
     * granted one (also in {@link Lease#votes()}), or a busy or failed one, which
     * {@link #tryAcquire()} and {@link #acquire(Duration)} report only as an empty result. Empty before
     * the first attempt, and for the legacy lock.
     *
     * @return the votes of the last attempt, in the order of the nodes; empty before the first
     */
    default List<NodeVote> lastVotes() {
        return List.of();
    }

    /**
     * Who holds the lock now, read from Redis. Locks taken by other clients (plain {@code SET NX PX})
     * appear with an unknown holder and fencing number.
     *
     * @return the holder, or empty when the lock is free
     */
    Optional<LockHolder> holder();

    /**
     * Removes the lock whoever holds it, for an operator stepping in by hand: deletes the key, bumps the
     * lock's fencing counter, wakes waiting Coordis clients, and appends an audit entry (who, when, why,
     * whose lock, the counter after the bump) to the list {@code {key}:audit}, newest first, 100 kept —
     * all in one script, so it is atomic. For Redlock it runs on every node at once.
     *
     * <p>The forced holder is not told directly: if it is a Coordis lease, its watchdog's next renewal
     * (within a third of its TTL) finds the lock no longer its own and completes {@link Lease#lost()}.
     * Until then it may still believe it holds the lock, so a protected resource must check fencing
     * numbers: the forced holder's is lower than the bumped counter, which is lower than the next
     * holder's. Prefer {@link #forceUnlock(LockHolder, String)} after showing the holder to a person.
     *
     * @param reason why, recorded in the audit entry; may be empty, at most 1000 characters
     * @return what was removed, or empty when nobody held the lock
     * @throws io.coordis.WrongTypeException when the key holds another type than a string
     * @throws io.coordis.CoordisException   when Redis (for Redlock: every node) cannot be reached
     */
    Optional<ForcedUnlock> forceUnlock(String reason);

    /**
     * Like {@link #forceUnlock(String)}, but only while the lock still holds {@code holder}'s value (as
     * {@link #holder()} read it): an operator who confirmed one holder never removes the next one.
     *
     * @param holder the holder to remove, as read by {@link #holder()}
     * @param reason why, written to the audit entry for other operators
     * @return what was removed, or empty when the lock is free or now held by someone else
     */
    Optional<ForcedUnlock> forceUnlock(LockHolder holder, String reason);

    /**
     * Runs {@code work} on this thread while holding the lock, waiting up to {@code wait} for it, and releases
     * the lease when {@code work} returns or throws. If the lease is lost while {@code work} runs (renewal
     * failed, or the lock was taken over), this thread is interrupted, and once {@code work} has returned or
     * thrown, a {@link io.coordis.CoordisException} says so (with what {@code work} threw, if anything,
     * suppressed) and the interrupt is cleared.
     *
     * @param wait how long to wait for the lock
     * @param work the work to run while holding it
     * @return {@code true} when {@code work} ran, {@code false} when the wait ran out
     * @throws InterruptedException        when interrupted while waiting for the lock
     * @throws io.coordis.CoordisException when the lease was lost while {@code work} ran, naming the lock
     */
    default boolean runLocked(Duration wait, Runnable work) throws InterruptedException {
        return whileLocked(wait, lease -> {
            work.run();
            return Boolean.TRUE;
        }).isPresent();
    }

    /**
     * Like {@link #runLocked}, but hands {@code task} the lease (for its fencing number) and answers the task's
     * result. Loss while the task runs interrupts this thread and throws a {@link io.coordis.CoordisException}
     * once the task has returned or thrown, as {@code runLocked} does.
     *
     * @param <T>  the task's result type
     * @param wait how long to wait for the lock
     * @param task the work to run while holding it, given the lease
     * @return the task's result, or empty when the wait ran out (or the task answered {@code null})
     * @throws InterruptedException        when interrupted while waiting for the lock, or by the task
     * @throws io.coordis.CoordisException when the lease was lost while the task ran, naming the lock
     */
    default <T> Optional<T> whileLocked(Duration wait, LockedTask<T> task) throws InterruptedException {
        Optional<Lease> acquired = acquire(wait);
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        try (Lease lease = acquired.get()) {
            return Optional.ofNullable(LossScope.run(lease.lost(), () -> task.run(lease),
                    () -> new CoordisException(null, Failures.object("lock", name()) + " was lost while the "
                            + "work was running (fencing token " + lease.fencingToken() + "); the work was interrupted",
                            null)));
        }
    }

    /** Work that runs while holding a lock; it should stop promptly when interrupted. */
    @FunctionalInterface
    interface LockedTask<T> {
        /**
         * Runs the work while the lock is held.
         *
         * @param lease the lease the work runs under; its fencing number guards writes
         * @return the work's result; {@code null} reads as empty
         * @throws InterruptedException when the lease was lost or the caller interrupted; stop promptly
         */
        T run(Lease lease) throws InterruptedException;
    }

    /**
     * A {@link java.util.concurrent.locks.Lock} view that adds thread ownership on top of this lock:
     * only the thread that locked may unlock, locking is reentrant for that thread, and
     * {@code newCondition()} is not supported; it also shows the holding thread's lease and tells at the last
     * unlock whether the lock was lost while held ({@link OwnedLock}). Keep one view per lock and share it
     * between threads.
     *
     * @return a {@link java.util.concurrent.locks.Lock} view of this lock
     */
    default OwnedLock asLock() {
        return threadOwned(this);
    }

    /**
     * {@link OwnedLock} over {@code lock}: owned by the thread that locked it, reentrant for that thread, unlocked
     * when the hold count returns to zero. The underlying lease renews itself while held.
     */
    private static OwnedLock threadOwned(DistributedLock lock) {
        final class ThreadOwnedLock implements OwnedLock {
            private final DistributedLock lock;
            private volatile Thread owner;
            private int holds;
            private Lease lease;

            ThreadOwnedLock(DistributedLock lock) {
                this.lock = lock;
            }

            @Override
            public void lock() {
                lock(lock);
            }

            @Override
            public void lock(DistributedLock via) {
                checkSameKey(via);
                if (reenter()) {
                    return;
                }
                boolean interrupted = false;
                try {
                    while (true) {
                        try {
                            own(via.acquire());
                            return;
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                } finally {
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void lockInterruptibly() throws InterruptedException {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (!reenter()) {
                    own(lock.acquire());
                }
            }

            @Override
            public boolean tryLock() {
                if (reenter()) {
                    return true;
                }
                Optional<Lease> l = lock.tryAcquire();
                l.ifPresent(this::own);
                return l.isPresent();
            }

            @Override
            public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
                return tryLock(lock, Duration.ofNanos(Math.max(0, unit.toNanos(time))));
            }

            @Override
            public boolean tryLock(DistributedLock via, Duration wait) throws InterruptedException {
                checkSameKey(via);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (reenter()) {
                    return true;
                }
                Optional<Lease> l = via.acquire(wait);
                l.ifPresent(this::own);
                return l.isPresent();
            }

            @Override
            public void unlock() {
                checkedUnlock();
            }

            @Override
            public boolean checkedUnlock() {
                if (owner != Thread.currentThread()) {
                    throw new IllegalMonitorStateException("lock '" + lock.name() + "' is not held by thread "
                            + Thread.currentThread().getName());
                }
                if (--holds > 0) {
                    return true;
                }
                Lease l = lease;
                lease = null;
                owner = null;
                return l.release();
            }

            @Override
            public Optional<Lease> lease() {
                return owner == Thread.currentThread() ? Optional.of(lease) : Optional.empty();
            }

            @Override
            public Condition newCondition() {
                throw new UnsupportedOperationException("conditions are not supported on distributed lock '" + lock.name()
                        + "'; use the signal primitives to wait for state changes");
            }

            private void checkSameKey(DistributedLock via) {
                if (!via.key().equals(lock.key())) {
                    throw new IllegalArgumentException("lock '" + lock.key() + "' cannot be acquired through another key's "
                            + "lock ('" + via.key() + "'); make it with the same name and key prefix");
                }
            }

            private boolean reenter() {
                if (owner == Thread.currentThread()) {
                    holds++;
                    return true;
                }
                return false;
            }

            private void own(Lease acquired) {
                lease = acquired;
                holds = 1;
                owner = Thread.currentThread();
            }

            @Override
            public String toString() {
                Thread o = owner;
                return "ThreadOwnedLock[" + lock.key() + (o == null ? ", unlocked" : ", held by " + o.getName()) + "]";
            }
        }
        return new ThreadOwnedLock(lock);
    }
}
