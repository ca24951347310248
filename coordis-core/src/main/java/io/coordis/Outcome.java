package io.coordis;

import io.coordis.queue.Delivery;

/**
 * What settling a queue's delivery ({@link io.coordis.queue.Delivery#ack()}, {@link io.coordis.queue.Delivery#nack()})
 * did.
 */
public enum Outcome {
    /** Removed from the processing slot: done. */
    ACKED,
    /** Put back at the end consumers take from next, for redelivery. */
    REQUEUED,
    /** Parked for the requested delay; a sweeper puts it back when it is due. */
    DELAYED,
    /** It failed {@code maxAttempts} times and now lies in the dead letters ({@code {queue}:dead}). */
    DEAD_LETTERED,
    /**
     * This delivery was settled before (an ack or nack whose reply was lost, retried): nothing was done
     * this time, and no other message was touched.
     */
    ALREADY_SETTLED,
    /**
     * The message was no longer in the consumer's processing slot: its heartbeat had expired, a sweeper put
     * the message back (it is, or will be, delivered again), or the consumer was closed. Nothing was done.
     */
    GONE;

    /**
     * Whether the message is finished with, by this call or an earlier one ({@link #ACKED}, {@link #ALREADY_SETTLED}).
     *
     * @return {@code true} for {@link #ACKED} and {@link #ALREADY_SETTLED}
     */
    public boolean done() {
        return this == ACKED || this == ALREADY_SETTLED;
    }
}
