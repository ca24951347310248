package io.coordis.bench;

import java.time.Duration;
import java.util.List;

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

    /**
     * Acknowledges {@code message}, then takes the next one as {@link #take} does: what a consumer that goes on
     * taking calls. Two calls by default; a client that does both in one round trip overrides it.
     */
    default String ackAndTake(String queue, String consumer, String message, Duration timeout)
            throws InterruptedException {
        ack(queue, consumer, message);
        return take(queue, consumer, timeout);
    }

    /**
     * How many messages one call of {@link #pushAll}, {@link #takeSome} and {@link #ackAll} handles at most:
     * 1 for a client used per message (the default), more for a batch API.
     */
    default int batch() {
        return 1;
    }

    /** Appends {@code messages} in order (the first is taken first); per message unless {@link #batch()} &gt; 1. */
    default void pushAll(String queue, List<String> messages) {
        for (String m : messages) {
            push(queue, m);
        }
    }

    /** Takes up to {@code max} messages, waiting up to {@code timeout} for the first; per message by default. */
    default List<String> takeSome(String queue, String consumer, int max, Duration timeout)
            throws InterruptedException {
        String m = take(queue, consumer, timeout);
        return m == null ? List.of() : List.of(m);
    }

    /** Acknowledges {@code messages} taken by {@code consumer}; per message by default. */
    default void ackAll(String queue, String consumer, List<String> messages) {
        for (String m : messages) {
            ack(queue, consumer, m);
        }
    }

    /** Messages in {@code queue} plus those in {@code consumer}s' processing lists (not yet acked). */
    long pending(String queue, List<String> consumers);

    @Override
    void close();
}
