package io.coordis.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore shared by every process that names it: at most {@link #permits()} permits are held at any
 * moment, each acquisition a {@link Permit} (a lease: renewed while open, fenced, freed by its TTL when its holder
 * dies, lost and told when renewal fails). Obtained from {@code Coordis.semaphore(name, permits)}.
 *
 * <p><b>Fair across processes.</b> Waiters are served in order of arrival, whichever process they are in: a waiter
 * for several permits is not overtaken by later waiters for fewer. A try ({@link #tryAcquire()}) takes no place in
 * line and gets nothing while others wait. A waiter keeps its place by renewing it; one that gives up (timeout,
 * interrupt, cancel) or dies leaves the line (a dead one within a few seconds).
 *
 * <p><b>The permit count</b> is stored in Redis, so every client agrees on it: the count given to the factory is
 * written by the first acquisition when none is stored, and otherwise ignored; {@link #setPermits} changes it at
 * run time. Shrinking it never revokes a held permit: new acquisitions wait until enough have been released.
 *
 * <p><b>Waiting</b> does not poll and parks no thread in the non-blocking form: a release wakes the waiters
 * (pub/sub), and a waiter also tries again when the earliest holder's TTL runs out, and every third of its place's
 * lapse time to renew it. The blocking methods wait on {@link #acquireAsync(int, Duration)}; interrupting them
 * cancels it, leaving nothing behind. Thread-safe.
 */
public interface Semaphore {

    /**
     * The name as the caller gave it (the Redis key of the holders is this after the client's key prefix).
     *
     * @return the name
     */
    String name();

    /**
     * Takes one permit if one is free and nobody waits in line; never waits.
     *
     * @return the permit, or empty when none was free or others wait
     */
    Optional<Permit> tryAcquire();

    /**
     * Takes {@code permits} permits at once if that many are free and nobody waits in line; never waits.
     *
     * @param permits how many permits to take
     * @return the permits, as one {@link Permit}, or empty when too few were free or others wait
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the semaphore's count
     */
    Optional<Permit> tryAcquire(int permits);

    /**
     * Waits at most {@code wait} for one permit; empty when the wait ran out.
     *
     * @param wait how long to wait; {@link Duration#ZERO} tries once
     * @return the permit, or empty when the wait ran out
     * @throws InterruptedException when interrupted; the place in line is given up, and a permit granted in the same
     * instant is released
     */
    Optional<Permit> acquire(Duration wait) throws InterruptedException;

    /**
     * Waits at most {@code wait} for {@code permits} permits, taken at once; empty when the wait ran out.
     *
     * @param permits how many permits to take
     * @param wait    how long to wait; {@link Duration#ZERO} tries once
     * @return the permits, as one {@link Permit}, or empty when the wait ran out
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the semaphore's count
     * @throws InterruptedException     when interrupted; the place in line is given up, and permits granted in the
     *                                  same instant are released
     */
    Optional<Permit> acquire(int permits, Duration wait) throws InterruptedException;

    /**
     * Waits as long as it takes for one permit.
     *
     * @return the permit
     * @throws InterruptedException when interrupted; the place in line is given up, and a permit granted in the same
     * instant is released
     */
    Permit acquire() throws InterruptedException;

    /**
     * Waits as long as it takes for {@code permits} permits, taken at once.
     *
     * @param permits how many permits to take
     * @return the permits, as one {@link Permit}
     * @throws InterruptedException when interrupted; the place in line is given up, and permits granted in the same
     * instant are released
     */
    Permit acquire(int permits) throws InterruptedException;

    /**
     * {@link #acquireAsync(int, Duration)} for one permit.
     *
     * @param wait how long to wait; {@link Duration#ZERO} tries once
     * @return a future of the permit, or of empty when the wait ran out
     */
    CompletableFuture<Optional<Permit>> acquireAsync(Duration wait);

    /**
     * Waits at most {@code wait} for {@code permits} permits without parking a thread: the future completes with the
     * permit, or empty when the wait ran out (a zero wait is a try), on the client's callback executor
     * ({@link io.coordis.Coordis.Builder#callbackExecutor}). Cancelling it ends the wait and leaves nothing behind: the
     * place in line is given up, and permits granted in the same instant are released at once.
     *
     * @param permits how many permits to take
     * @param wait    how long to wait; {@link Duration#ZERO} tries once
     * @return a future of the permits, as one {@link Permit}, or of empty when the wait ran out
     * @throws IllegalArgumentException when {@code permits} is below 1 or {@code wait} is negative; a count above
     *                                  the semaphore's fails the future with it
     */
    CompletableFuture<Optional<Permit>> acquireAsync(int permits, Duration wait);

    /**
     * The permit count as stored in Redis, or the count this semaphore was made with when none is stored yet.
     *
     * @return the permit count, at least 1
     */
    int permits();

    /**
     * Changes the permit count for every client and wakes the waiters. Held permits stay held: with fewer
     * permits, new acquisitions wait until the holders are within the new count.
     *
     * @param permits the new count, at least 1
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    void setPermits(int permits);
}
