package io.coordis.latch;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A count-down latch in Redis: it opens when {@link #countDown()} has been called {@code count} times, by any
 * process, and once open it stays open: a waiter that comes after the opening returns at once. From
 * {@code Coordis.countDownLatch(name, count, expireAfter)}.
 *
 * <p>The first call of any method on a name stores the latch with the handle's count when none is stored; a later
 * handle with another count does not reset it, the stored count applies. Every change (the creation, each count
 * down) sets the key to expire {@code expireAfter} later, so the latch leaves Redis that long after it opened, or
 * after its last change when it never opens; the next use after that starts a new latch with the full count.
 *
 * <p>The opening is published once, on the latch's channel. Waiters subscribe before they read the count, and read
 * it again after a reconnect, so no order of opening and waiting loses the wake-up; they wait without polling. A
 * transient failure (Redis restarting, a failover) during a wait is tried again within the wait's timeout.
 * Thread-safe; handles are cheap and hold nothing between calls.
 */
public interface CountDownLatch {
    /**
     * The longest {@code expireAfter} a latch accepts, 30 days: a latch meant to stay longer is state rather than a
     * latch.
     */
    Duration MAX_EXPIRY = Duration.ofDays(30);

    /**
     * The largest count a latch accepts, 2<sup>53</sup> - 1: Redis's scripts count in double-precision numbers, which
     * are exact up to it.
     */
    long MAX_COUNT = (1L << 53) - 1;

    /**
     * The latch's name, as given.
     *
     * @return the name
     */
    String name();

    /**
     * The Redis key that holds the count.
     *
     * @return the key, prefix included
     */
    String key();

    /**
     * The count this handle stores when none is stored.
     *
     * @return the initial count, at least 1
     */
    long initialCount();

    /**
     * How long the key outlives the opening or the last change.
     *
     * @return the expiry
     */
    Duration expireAfter();

    /**
     * Counts down by one and publishes the opening when the count reaches zero; at zero it does nothing (and does
     * not move the expiry). One round trip; blocks at most the command timeout, keeping an interrupt for later.
     *
     * @return the count after this call, 0 once open
     * @throws io.coordis.CoordisException when Redis fails or does not answer in time
     */
    long countDown();

    /**
     * The stored count, storing the initial count first when none is stored. One round trip.
     *
     * @return the count, 0 once open
     * @throws io.coordis.CoordisException when Redis fails or does not answer in time
     */
    long getCount();

    /**
     * Waits until the latch is open, at most {@code timeout}; returns at once when it is open already. A zero
     * timeout only reads the count.
     *
     * @param timeout the longest wait, not negative
     * @return {@code true} when the latch is open, {@code false} when the timeout passed first
     * @throws InterruptedException        when interrupted meanwhile (nothing stays subscribed)
     * @throws io.coordis.CoordisException when Redis stays unavailable for the whole timeout, or fails permanently
     */
    boolean await(Duration timeout) throws InterruptedException;

    /**
     * {@link #await(Duration)} without a thread waiting: completes on the client's callback executor with
     * {@code true} when open, {@code false} when the timeout passed first, or the failure {@code await} throws.
     * Cancelling the future ends the wait and unsubscribes.
     *
     * @param timeout the longest wait, not negative
     * @return the outcome of the wait
     */
    CompletableFuture<Boolean> awaitAsync(Duration timeout);
}
