package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Outcome;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A {@link Delivery} held in a consumer's processing slot: its id names the consumer, the slot and the take, and
 * settling goes through the {@link Settler} that took it (the consumer, or the queue for a delivery known only by id).
 * Thread-safe; the first outcome is remembered and answered again.
 */
final class SlotDelivery implements Delivery {
    /** Settles deliveries; the consumer that took them, or the queue for a delivery known only by id. */
    interface Settler {
        /**
         * Settles {@code ref}; {@code failures} is the payload's failed deliveries as its take reported them, or
         * {@code -1} when not known (an ack of a message known to have none touches no count).
         */
        Settled settle(DeliveryRef ref, boolean ack, Duration delay, long failures) throws InterruptedException;

        /** A delivery taken at {@code taken} (timer time) was settled with {@code outcome}, by this call or a batch. */
        void settled(Outcome outcome, long taken);

        /**
         * Settles and, in the same call, hands the delivery's slot the consumer's next ready message; never
         * blocks for one.
         */
        Next settleAndTake(DeliveryRef ref, boolean ack, Duration delay, long failures) throws InterruptedException;

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

    SlotDelivery(DeliveryRef ref, byte[] payload, int attempts, long taken, Settler settler) {
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
    SlotDelivery(DeliveryRef ref, byte[] payload, Supplier<CompletableFuture<Long>> lookup, Duration lookupTimeout,
             long taken, Settler settler) {
        this.ref = ref;
        this.taken = taken;
        this.payload = payload;
        this.attempts = 0;
        this.settler = settler;
        this.lookup = lookup;
        this.lookupTimeout = lookupTimeout;
    }

    @Override
    public String id() {
        return ref.toString();
    }

    DeliveryRef ref() {
        return ref;
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public String text() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
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
            throw new CoordisException(null, "interrupted while reading the delivery count of " + id(), e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof CoordisException c ? c
                    : new CoordisException(null, "cannot read the delivery count of " + id() + ": "
                    + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new NodeUnavailableException(null, "no reply within " + lookupTimeout.toMillis()
                    + " ms to the delivery count lookup of " + id(), e);
        }
        known = (int) Math.min(Integer.MAX_VALUE, failed + 1);
        attempts = known;
        return known;
    }

    @Override
    public Outcome outcome() {
        return outcome;
    }

    @Override
    public Outcome ack() throws InterruptedException {
        return settle(true, Duration.ZERO);
    }

    @Override
    public Outcome nack() throws InterruptedException {
        return settle(false, Duration.ZERO);
    }

    @Override
    public Outcome nack(Duration delay) throws InterruptedException {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("nack delay must be zero or positive, was " + delay);
        }
        return settle(false, delay);
    }

    @Override
    public Optional<Delivery> ackAndTake(Duration wait) throws InterruptedException {
        return settleAndTake(true, Duration.ZERO, wait);
    }

    @Override
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
            n = settler.settleAndTake(ref, ack, delay, failures());
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
        Settled s = settler.settle(ref, ack, delay, failures());
        learn(s);
        outcome = s.outcome();
        settler.settled(outcome, taken);
        return outcome;
    }

    /** The failed deliveries before this one when known, else {@code -1}. */
    private long failures() {
        int known = attempts;
        return known > 0 ? known - 1 : -1;
    }

    /** An ack of this delivery, for a batch. */
    SlotQueue.Settle asAck() {
        return SlotQueue.Settle.ack(ref, failures());
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
