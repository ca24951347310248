package io.coordis.signal;

/**
 * A {@link SignalListener} registered on channels until {@link #close()}. Thread-safe.
 */
public interface Subscription extends AutoCloseable {
    /**
     * How many times a node's subscription was lost and restored (each was reported to the listener).
     *
     * @return the number of gaps, 0 when none
     */
    long gaps();

    /** Stops delivery and unsubscribes channels no one else in this client listens on. Idempotent; never throws. */
    @Override
    void close();
}
