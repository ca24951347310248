package io.coordis.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A rate limiter shared by every process that names it: together they are granted at most what its
 * {@link RateLimit} allows, however many they are and whatever their clocks say. Obtained from
 * {@code Coordis.rateLimiter(name, limit)}; {@link #forKey} gives the limiter of one member of a family (one user,
 * one tenant) under the same limit.
 *
 * <p><b>One round trip per decision.</b> Each call is one script on Redis that reads Redis's clock, decides and
 * records the grant: no read-then-compare retries, so a hot limiter costs one command per decision however many
 * ask. Every client must use the same limit for a name; a client with another limit applies its own to the shared
 * state.
 *
 * <p><b>Waiting</b> does not poll: {@link #acquire(int, Duration)} reserves the permits at their due time in the same
 * call when that time falls within the wait, then sleeps until then; when it does not, it returns {@code false} at
 * once, since waiting could not change the answer. Permits once granted are spent, also when the caller gives up
 * (interrupt, cancel) before they are due.
 *
 * <p><b>Outages.</b> A wait rides out Redis being unavailable for a while (restarting, a node down, failing over): within
 * the wait the request is sent again, reserving what is left of the wait, and once the wait is spent the last failure
 * is thrown. A permanent failure (a key of another type, missing permissions) is thrown at once, and so is any failure
 * of a {@code tryAcquire}. Failures name the limiter.
 *
 * <p>The limiter keeps one key, which expires when the limiter has been idle long enough to be back at its full
 * burst. Thread-safe.
 */
public interface RateLimiter {

    /**
     * The name as the caller gave it; for a limiter from {@link #forKey}, the family's name, a colon and the key.
     *
     * @return the name
     */
    String name();

    /**
     * The rate this limiter applies.
     *
     * @return the limit
     */
    RateLimit limit();

    /**
     * Takes one permit if it is due now; never waits.
     *
     * @return the decision: granted, or how long until a permit is due
     */
    Decision tryAcquire();

    /**
     * Takes {@code permits} permits at once if they are due now; never waits.
     *
     * @param permits how many permits to take, between 1 and the limit's burst
     * @return the decision: granted, or how long until that many are due
     * @throws IllegalArgumentException    when {@code permits} is below 1 or above the burst
     * @throws io.coordis.CoordisException when Redis fails or does not answer within the command timeout
     */
    Decision tryAcquire(int permits);

    /**
     * Takes one permit, waiting at most {@code wait} for it; see {@link #acquire(int, Duration)}.
     *
     * @param wait how long to wait at most; {@link Duration#ZERO} tries once
     * @return {@code true} when the permit is granted and due, {@code false} when it would not be due within the wait
     * @throws InterruptedException when interrupted while waiting for a reserved permit, which stays spent
     */
    boolean acquire(Duration wait) throws InterruptedException;

    /**
     * Takes {@code permits} permits, waiting at most {@code wait} for them: when they are due within the wait they are
     * reserved at once and this returns when they are due (measured from when the request was sent, so never after
     * the wait); otherwise this returns {@code false} at once.
     *
     * @param permits how many permits to take, between 1 and the limit's burst
     * @param wait    how long to wait at most; {@link Duration#ZERO} tries once
     * @return {@code true} when the permits are granted and due, {@code false} when they would not be due within the
     *         wait
     * @throws IllegalArgumentException    when {@code permits} is below 1 or above the burst, or {@code wait} is
     *                                     negative
     * @throws InterruptedException        when interrupted while waiting for reserved permits, which stay spent, or
     *                                     for Redis to come back
     * @throws io.coordis.CoordisException when Redis stays unavailable for the whole wait, or fails permanently
     */
    boolean acquire(int permits, Duration wait) throws InterruptedException;

    /**
     * {@link #tryAcquire(int)} without blocking: the future completes with the decision on the client's callback
     * executor ({@link io.coordis.Coordis.Builder#callbackExecutor}).
     *
     * @param permits how many permits to take, between 1 and the limit's burst
     * @return a future of the decision
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the burst
     */
    CompletableFuture<Decision> tryAcquireAsync(int permits);

    /**
     * {@link #acquire(int, Duration)} without parking a thread: the future completes with {@code true} when the
     * permits are due (the wait runs on the client's timer), or {@code false} at once, on the client's callback
     * executor. Cancelling it ends the wait; reserved permits stay spent.
     *
     * @param permits how many permits to take, between 1 and the limit's burst
     * @param wait    how long to wait at most; {@link Duration#ZERO} tries once
     * @return a future of whether the permits were granted, or of the failure {@code acquire} throws
     * @throws IllegalArgumentException when {@code permits} is below 1 or above the burst, or {@code wait} is negative
     */
    CompletableFuture<Boolean> acquireAsync(int permits, Duration wait);

    /**
     * The limiter of one member of this limiter's family ({@code forKey("user-42")}), under the same limit and
     * independent of the others: each member has its own key, kept only while that member is limited.
     *
     * @param key the member, not empty; the name becomes {@code name + ":" + key}
     * @return the member's limiter
     * @throws IllegalArgumentException when {@code key} is empty or the resulting name too long
     */
    RateLimiter forKey(String key);
}
