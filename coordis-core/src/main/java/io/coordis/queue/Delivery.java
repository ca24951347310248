package io.coordis.queue;

import io.coordis.Outcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

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
        Settled settle(DeliveryRef ref, boolean ack, Duration delay) throws InterruptedException;

        /** A delivery taken at {@code taken} (timer time) was settled with {@code outcome}, by this call or a batch. */
        void settled(Outcome outcome, long taken);

        /**
         * Settles and, in the same call, hands the delivery's slot the consumer's next ready message; never
         * blocks for one.
         */
        Next settleAndTake(DeliveryRef ref, boolean ack, Duration delay) throws InterruptedException;

        /** A take of the consumer's next message, waiting up to {@code wait}, as {@link Consumer#take(Duration)}. */
        Optional<Delivery> takeNext(Duration wait) throws InterruptedException;
    }

    /**
     * What a combined settle and take answered: the settle, the next delivery ({@code null}: none), and whether it
     * looked for one at all (it may settle alone while the queue keeps running empty).
     */
    record Next(Settled settled, Delivery delivery, boolean looked) {
    }

    private final DeliveryRef ref;
    private final byte[] payload;
    private final Settler settler;
    private volatile int attempts;
    /** Reads the failed-delivery count from Redis; {@code null} when the count came with the message. */
    private final Supplier<CompletableFuture<Long>> lookup;
    private final Duration lookupTimeout;
    private volatile Outcome outcome;
    /** When it was taken, on the client's timer. */
    private final long taken;

    Delivery(DeliveryRef ref, byte[] payload, int attempts, long taken, Settler settler) {
        this.ref = ref;
        this.taken = taken;
        this.payload = payload;
        this.attempts = attempts;
        this.settler = settler;
        this.lookup = null;
        this.lookupTimeout = Duration.ZERO;
    }

    /**
     * A delivery whose failed-delivery count was not read with the message: settling answers it, and
     * {@link #attempts()} before that reads it with {@code lookup}, waiting at most {@code lookupTimeout}.
     */
    Delivery(DeliveryRef ref, byte[] payload, Supplier<CompletableFuture<Long>> lookup, Duration lookupTimeout,
             long taken, Settler settler) {
        this.ref = ref;
        this.taken = taken;
        this.payload = payload;
        this.attempts = 0;
        this.settler = settler;
        this.lookup = lookup;
        this.lookupTimeout = lookupTimeout;
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
     *
     * <p>A message that a blocking take received the moment it arrived comes without its count, which costs
     * nothing until it is needed: the first call here before the delivery is settled reads it (one round
     * trip, at most the command timeout), and settling answers it with the settle itself. (A settle that did
     * not find the message — gone, or settled before through its id — answers nothing; a later call then reads
     * the payload's count as it is at that time.)
     *
     * @throws io.coordis.CoordisException when that read failed (Redis unavailable); the delivery itself is
     *                                     unaffected and can still be settled
     */
    public int attempts() {
        int known = attempts;
        if (known > 0 || lookup == null) {
            return known;
        }
        synchronized (this) { // not while a settle runs: it clears the count this would read
            return lookUp();
        }
    }

    /** Reads the count unless known; the caller holds this delivery's monitor. */
    private int lookUp() {
        int known = attempts;
        if (known > 0) {
            return known;
        }
        long failed;
        try {
            failed = lookup.get().get(lookupTimeout.toNanos() + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.coordis.CoordisException(null, "interrupted while reading the delivery count of " + id(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof io.coordis.CoordisException c ? c
                    : new io.coordis.CoordisException(null, "cannot read the delivery count of " + id() + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new io.coordis.NodeUnavailableException(null, "no reply within " + lookupTimeout.toMillis()
                    + " ms to the delivery count lookup of " + id(), e);
        }
        known = (int) Math.min(Integer.MAX_VALUE, failed + 1);
        attempts = known;
        return known;
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
     * @return the next delivery, or empty when none came within {@code wait}
     * @throws io.coordis.CoordisException when Redis did not confirm: the outcome stays unknown ({@code null});
     *                                     call {@link #ack()} (it is safe), then take again
     * @throws IllegalStateException       when the consumer is closed (after the acknowledgement)
     */
    public Optional<Delivery> ackAndTake(Duration wait) throws InterruptedException {
        return settleAndTake(true, Duration.ZERO, wait);
    }

    /**
     * {@link #nack(Duration)}, and takes the consumer's next message in the same round trip, as
     * {@link #ackAndTake(Duration)} does. With FIFO order and no delay, the message given back is the next one
     * taken (a requeue puts it at the end consumers take from next), unless it was dead-lettered.
     */
    public Optional<Delivery> nackAndTake(Duration delay, Duration wait) throws InterruptedException {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("nack delay must be zero or positive, was " + delay);
        }
        return settleAndTake(false, delay, wait);
    }

    private Optional<Delivery> settleAndTake(boolean ack, Duration delay, Duration wait) throws InterruptedException {
        if (wait == null || wait.isNegative()) {
            throw new IllegalArgumentException("take wait must be zero or positive, was " + wait);
        }
        Next n;
        synchronized (this) {
            if (outcome != null) {
                return settler.takeNext(wait);
            }
            n = settler.settleAndTake(ref, ack, delay);
            learn(n.settled());
            outcome = n.settled().outcome();
            settler.settled(outcome, taken);
        }
        if (n.delivery() != null) {
            return Optional.of(n.delivery());
        }
        return n.looked() && wait.isZero() ? Optional.empty() : settler.takeNext(wait);
    }

    /** Records what a batch ack answered. */
    synchronized void record(Settled s) {
        if (outcome == null) {
            learn(s);
            outcome = s.outcome();
            settler.settled(outcome, taken);
        }
    }

    private synchronized Outcome settle(boolean ack, Duration delay) throws InterruptedException {
        if (outcome != null) {
            return outcome;
        }
        Settled s = settler.settle(ref, ack, delay);
        learn(s);
        outcome = s.outcome();
        settler.settled(outcome, taken);
        return outcome;
    }

    /** Takes the count from a settle's answer when it was not known yet. */
    private void learn(Settled s) {
        if (attempts == 0 && s.failuresBefore() >= 0) {
            attempts = (int) Math.min(Integer.MAX_VALUE, s.failuresBefore() + 1);
        }
    }

    @Override
    public String toString() {
        return "Delivery[" + id() + ", " + payload.length + " bytes, attempt " + (attempts > 0 ? Integer.toString(attempts) : "?")
                + (outcome == null ? "" : ", " + outcome) + "]";
    }
}
