package io.coordis.signal;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A subscription to several channels that completes once each of them has delivered a signal; for each
 * channel the first signal counts. Subscribed (confirmed by Redis) when the method that made it returns,
 * so the caller can trigger the work and then {@link #await}. Delivery is at most once, as for
 * {@link Waiter}. Thread-safe.
 */
public interface Gathering extends AutoCloseable {
    /**
     * Blocks until every channel delivered a signal or {@code timeout} passes.
     *
     * @param timeout how long to wait
     * @return each channel's signal, in the order the channels were given, or empty on timeout (a zero or
     *         negative timeout only checks); what arrived so far stays in {@link #received()}
     * @throws InterruptedException  when the thread is interrupted while waiting (the gathering stays usable)
     * @throws IllegalStateException when the gathering was closed before it completed
     * @throws io.coordis.CoordisException when the client was closed before it completed (at once)
     */
    Optional<Map<String, Signal>> await(Duration timeout) throws InterruptedException;

    /**
     * The first signal of each channel that delivered one so far; never blocks.
     *
     * @return the signals so far, by channel
     */
    Map<String, Signal> received();

    /**
     * How many times a node's subscription was lost and restored while this gathering listened.
     *
     * @return the number of gaps, 0 when none
     */
    long gaps();

    /** Unsubscribes. Idempotent; never throws. */
    @Override
    void close();
}
