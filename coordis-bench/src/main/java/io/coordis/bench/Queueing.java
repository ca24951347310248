package io.coordis.bench;

import java.time.Duration;

/**
 * The reliable-queue calls the queue scenario makes: push, a blocking take that moves the message into
 * the consumer's own processing list, and an ack that removes it from there. Thread-safe; blocking takes
 * of different consumers do not hold each other up.
 */
interface Queueing extends AutoCloseable {

    /** Appends {@code message} to {@code queue}. */
    void push(String queue, String message);

    /**
     * Takes the oldest message of {@code queue}, moving it into {@code consumer}'s processing list, waiting
     * up to {@code timeout}; {@code null} when none came.
     */
    String take(String queue, String consumer, Duration timeout) throws InterruptedException;

    /** Removes {@code message} from {@code consumer}'s processing list. */
    void ack(String queue, String consumer, String message);

    /** Messages in {@code queue} plus those in {@code consumer}s' processing lists (not yet acked). */
    long pending(String queue, java.util.List<String> consumers);

    @Override
    void close();
}
