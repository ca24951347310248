package io.coordis.queue;

import io.coordis.Outcome;

import java.time.Duration;
import java.util.Optional;

/**
 * One message handed to one consumer, held in that consumer's processing slot until it is settled:
 * {@link #ack()} when done, {@link #nack()} to have it redelivered. Every delivery must be settled; an
 * unsettled one keeps its slot busy (the consumer takes at most {@code slots} at once) until the consumer
 * is closed, which puts it back in the queue.
 *
 * <p>Settling is exactly-once per delivery: if the reply is lost (an exception), call the same method
 * again; a repeated call answers {@link Outcome#ALREADY_SETTLED} and never removes another copy of the
 * same payload. Implementations are thread-safe; the first outcome is remembered and answered again.
 */
public interface Delivery {
    /**
     * This delivery's id, {@code consumer/slot/number}: with it, any process can settle the delivery through
     * {@link ReliableQueue#ack(String)} or {@link ReliableQueue#nack(String, Duration)}.
     *
     * @return the id
     */
    String id();

    /**
     * The payload, exactly the bytes that were pushed.
     *
     * @return a copy of the payload's bytes
     */
    byte[] payload();

    /**
     * The payload decoded as UTF-8 (malformed bytes become U+FFFD).
     *
     * @return the payload as text
     */
    String text();

    /**
     * Which delivery of this payload this is: 1 for the first, 1 + the failed deliveries counted so far.
     * Counts are kept per distinct payload (see {@link ReliableQueue}), so identical payloads share one.
     *
     * <p>A message that a blocking take received the moment it arrived comes without its count, which costs
     * nothing until it is needed: the first call here before the delivery is settled reads it (one round
     * trip, at most the command timeout), and settling answers it with the settle itself. (A settle that did
     * not find the message — gone, or settled before through its id — answers nothing; a later call then reads
     * the payload's count as it is at that time.)
     *
     * @return the delivery's number, 1 for the first
     * @throws io.coordis.CoordisException when that read failed (Redis unavailable); the delivery itself is
     *                                     unaffected and can still be settled
     */
    int attempts();

    /**
     * The outcome of settling.
     *
     * @return the outcome, or {@code null} while not settled
     */
    Outcome outcome();

    /**
     * Acknowledges: removes the message for good. Answers {@link Outcome#ACKED}, {@link Outcome#GONE} when
     * a sweeper had already put it back (this consumer's heartbeat expired: the message will be, or was,
     * delivered again), or the outcome of an earlier settle.
     *
     * @return the outcome
     * @throws InterruptedException when interrupted while waiting for the reply; the outcome is then unknown
     * @throws io.coordis.CoordisException when Redis did not confirm; call again (it is safe)
     */
    Outcome ack() throws InterruptedException;

    /**
     * Gives the message back for redelivery at once; see {@link #nack(Duration)}.
     *
     * @return the outcome
     * @throws InterruptedException when interrupted while waiting for the reply; the outcome is then unknown
     */
    Outcome nack() throws InterruptedException;

    /**
     * Gives the message back: counts a failed delivery, then dead-letters it when it failed
     * {@code maxAttempts} times, else requeues it at the end consumers take from next, at once or once
     * {@code delay} has passed (delayed retries are moved back by the sweepers, so they return up to one
     * sweep interval late).
     *
     * @param delay how long before the message may be taken again; {@link Duration#ZERO} requeues it at once
     * @return the outcome: requeued, dead-lettered, gone, or that of an earlier settle
     * @throws InterruptedException when interrupted while waiting for the reply; the outcome is then unknown
     * @throws io.coordis.CoordisException when Redis did not confirm; call again (it is safe)
     */
    Outcome nack(Duration delay) throws InterruptedException;

    /**
     * Acknowledges, and takes the consumer's next message in the same round trip: a busy consumer spends one
     * call per message. The next message is a delivery like one from {@link Consumer#take(Duration)}: its
     * attempt counted, held in this delivery's slot until settled, put back by the sweepers if the consumer
     * dies holding it. When none is ready, a take follows, waiting up to {@code wait}. While this consumer's
     * last look found the queue empty (consumers keep up), the acknowledgement goes alone and that take
     * follows at once, a blocking one when {@code wait} is positive; the combined call is tried again every few
     * messages and whenever a take found more waiting. The acknowledgement's outcome is {@link #outcome()} afterwards (as {@link #ack()} answers it); if this
     * delivery was settled before, this is a plain take.
     *
     * @param wait how long to wait for a message when none is ready ({@link Duration#ZERO}: do not wait)
     * @throws InterruptedException        when interrupted while waiting for the reply or the next message
     * @return the next delivery, or empty when none came within {@code wait}
     * @throws io.coordis.CoordisException when Redis did not confirm: the outcome stays unknown ({@code null});
     *                                     call {@link #ack()} (it is safe), then take again
     * @throws IllegalStateException       when the consumer is closed (after the acknowledgement)
     */
    Optional<Delivery> ackAndTake(Duration wait) throws InterruptedException;

    /**
     * {@link #nack(Duration)}, and takes the consumer's next message in the same round trip, as
     * {@link #ackAndTake(Duration)} does. With FIFO order and no delay, the message given back is the next one
     * taken (a requeue puts it at the end consumers take from next), unless it was dead-lettered.
     *
     * @param delay how long before the message may be taken again; {@link Duration#ZERO} requeues it at once
     * @param wait  how long to wait for a message when none is ready ({@link Duration#ZERO}: do not wait)
     * @return the next delivery, or empty when none came within {@code wait}
     * @throws InterruptedException when interrupted while waiting for the reply or the next message
     */
    Optional<Delivery> nackAndTake(Duration delay, Duration wait) throws InterruptedException;
}
