package io.coordis.queue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One message handed to one consumer, held in that consumer's processing slot until it is settled:
 * {@link #ack()} when done, {@link #nack()} to have it redelivered. Every delivery must be settled; an
 * unsettled one keeps its slot busy (the consumer takes at most {@code slots} at once) until the consumer
 * is closed, which puts it back in the queue.
 *
 * <p>Settling is exactly-once per delivery: if the reply is lost (an exception), call the same method
 * again; a repeated call answers {@link Outcome#ALREADY_SETTLED} and never removes another copy of the
 * same payload. Thread-safe; the first outcome is remembered and answered again.
 */
public final class Delivery {
    /** Settles deliveries; the consumer that took them, or the queue for a delivery known only by id. */
    interface Settler {
        Outcome settle(DeliveryRef ref, boolean ack, Duration delay) throws InterruptedException;
    }

    private final DeliveryRef ref;
    private final byte[] payload;
    private final int attempts;
    private final Settler settler;
    private volatile Outcome outcome;

    Delivery(DeliveryRef ref, byte[] payload, int attempts, Settler settler) {
        this.ref = ref;
        this.payload = payload;
        this.attempts = attempts;
        this.settler = settler;
    }

    /**
     * This delivery's id, {@code consumer/slot/number}: with it, any process can settle the delivery through
     * {@link ReliableQueue#ack(String)} or {@link ReliableQueue#nack(String, Duration)}.
     */
    public String id() {
        return ref.toString();
    }

    DeliveryRef ref() {
        return ref;
    }

    /** The payload, exactly the bytes that were pushed. Returns a copy. */
    public byte[] payload() {
        return payload.clone();
    }

    /** The payload decoded as UTF-8 (malformed bytes become U+FFFD). */
    public String text() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    /**
     * Which delivery of this payload this is: 1 for the first, 1 + the failed deliveries counted so far.
     * Counts are kept per distinct payload (see {@link ReliableQueue}), so identical payloads share one.
     */
    public int attempts() {
        return attempts;
    }

    /** The outcome of settling, or {@code null} while not settled. */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * Acknowledges: removes the message for good. Answers {@link Outcome#ACKED}, {@link Outcome#GONE} when
     * a sweeper had already put it back (this consumer's heartbeat expired: the message will be, or was,
     * delivered again), or the outcome of an earlier settle.
     *
     * @throws io.coordis.CoordisException when Redis did not confirm; call again (it is safe)
     */
    public Outcome ack() throws InterruptedException {
        return settle(true, Duration.ZERO);
    }

    /** Gives the message back for redelivery at once; see {@link #nack(Duration)}. */
    public Outcome nack() throws InterruptedException {
        return settle(false, Duration.ZERO);
    }

    /**
     * Gives the message back: counts a failed delivery, then dead-letters it when it failed
     * {@code maxAttempts} times, else requeues it at the end consumers take from next, at once or once
     * {@code delay} has passed (delayed retries are moved back by the sweepers, so they return up to one
     * sweep interval late).
     *
     * @throws io.coordis.CoordisException when Redis did not confirm; call again (it is safe)
     */
    public Outcome nack(Duration delay) throws InterruptedException {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("nack delay must be zero or positive, was " + delay);
        }
        return settle(false, delay);
    }

    /** Records an outcome reached by a batch ack. */
    synchronized void record(Outcome o) {
        if (outcome == null) {
            outcome = o;
        }
    }

    private synchronized Outcome settle(boolean ack, Duration delay) throws InterruptedException {
        if (outcome != null) {
            return outcome;
        }
        Outcome o = settler.settle(ref, ack, delay);
        outcome = o;
        return o;
    }

    @Override
    public String toString() {
        return "Delivery[" + id() + ", " + payload.length + " bytes, attempt " + attempts
                + (outcome == null ? "" : ", " + outcome) + "]";
    }
}
