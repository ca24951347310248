package io.coordis.queue;

import io.coordis.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One consumer of a {@link ReliableQueue}: a heartbeat, up to {@code slots} processing slots, and a sweeper
 * that recovers the messages of dead consumers. Thread-safe: several threads may take from one consumer,
 * each delivery holding one slot until settled.
 */
public interface Consumer extends AutoCloseable {
    /**
     * This consumer's id, the first part of its delivery ids.
     *
     * @return the id
     */
    String id();

    /**
     * Takes one message, waiting up to {@code wait} for one (and for a free slot); empty when none came.
     * A message already moved into a free slot (a lost reply) is handed out first.
     *
     * @param wait how long to wait; {@link Duration#ZERO} does not wait
     * @return the delivery, or empty when none came in time
     * @throws InterruptedException when interrupted; a message moved meanwhile stays in its slot and is
     *                              handed out by a later take, or put back by {@link #close()}
     */
    Optional<Delivery> take(Duration wait) throws InterruptedException;

    /**
     * {@link #take(Duration)} without a thread waiting: the future completes with a delivery, or empty when none
     * came within {@code wait}. It completes on the client's callback executor
     * ({@link io.coordis.Coordis.Builder#callbackExecutor}), never on a thread the client needs.
     *
     * <p>Each take needs one of the consumer's {@code slots} ({@link QueueOptions#withSlots}): at most that many
     * wait at Redis at once, each with a blocking {@code BLMOVE} on its slot's own connection (renewed at most
     * every heartbeat TTL); further takes wait in the consumer, in arrival order, without a connection. For
     * thousands of concurrent takes, give the consumer more slots only as far as Redis should hold connections.
     *
     * <p>Cancelling the future ends the wait and leaves nothing behind: a message moved for this take in that
     * instant goes back to the end of the queue consumers take from next, without counting a failed delivery;
     * a {@code BLMOVE} under way is ended by closing its connection (the slot's next take opens another).
     *
     * @param wait how long to wait; {@link Duration#ZERO} does not wait
     * @return a future of the delivery, or of empty when none came in time
     * @throws IllegalStateException when the consumer is closed (a take under way when it closes fails with it)
     */
    CompletableFuture<Optional<Delivery>> takeAsync(Duration wait);

    /**
     * Takes up to {@code max} messages in one round trip, waiting up to {@code wait} for the first.
     *
     * @param max  the most messages to take, at least 1
     * @param wait how long to wait for the first; {@link Duration#ZERO} does not wait
     * @return the deliveries, in the order taken; empty when none came in time
     * @throws InterruptedException when interrupted while waiting
     */
    List<Delivery> take(int max, Duration wait) throws InterruptedException;

    /**
     * Acknowledges several deliveries of this consumer in one round trip; outcomes in the same order.
     * Safe to retry after an exception.
     *
     * @param deliveries deliveries taken by this consumer
     * @return each delivery's outcome, in order
     * @throws InterruptedException when interrupted while waiting for the reply
     */
    List<Outcome> ack(List<Delivery> deliveries) throws InterruptedException;

    /**
     * Stops the heartbeat and the sweeps and puts every message in this consumer's slots back at the end
     * consumers take from next (unsettled deliveries then answer {@link Outcome#GONE}). If Redis cannot be
     * reached, the messages stay, and sweepers put them back once the heartbeat expires. Idempotent.
     */
    @Override
    void close();
}
