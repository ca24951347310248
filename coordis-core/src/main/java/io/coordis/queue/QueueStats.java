package io.coordis.queue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of a reliable queue, read with several commands (not one atomic instant).
 *
 * @param queue       the queue's name
 * @param depth       messages ready to be taken ({@code LLEN})
 * @param oldestAge   how long the oldest ready message has waited, by the enqueue time Coordis producers
 *                    record; empty when the queue is empty or that message was pushed by a foreign client
 *                    (a plain {@code LPUSH}), or its identical twin was acked (times are kept per distinct
 *                    payload)
 * @param deadLetters messages in the dead letters
 * @param delayed     nacked messages waiting for their delay to pass
 * @param settled     messages settled for good since the queue was first used: acked, or dead-lettered by a nack
 *                    or a sweep (a counter that only grows; its change over time is the queue's throughput).
 *                    Only Coordis consumers count: a client that removes messages its own way leaves it low
 * @param consumers   registered consumers, live and dead (a dead one stays listed for a while after its
 *                    messages were put back)
 */
public record QueueStats(String queue, long depth, Optional<Duration> oldestAge, long deadLetters, long delayed,
                         long settled, List<ConsumerStats> consumers) {
    /**
     * Copies the consumers, so the figures cannot change.
     *
     * @param queue       the queue's name
     * @param depth       messages ready to be taken ({@code LLEN})
     * @param oldestAge   how long the oldest ready message has waited, by the enqueue time Coordis producers
     *                    record; empty when the queue is empty or that message was pushed by a foreign client
     *                    (a plain {@code LPUSH}), or its identical twin was acked (times are kept per distinct
     *                    payload)
     * @param deadLetters messages in the dead letters
     * @param delayed     nacked messages waiting for their delay to pass
     * @param settled     messages settled for good since the queue was first used: acked, or dead-lettered by a nack
     *                    or a sweep (a counter that only grows; its change over time is the queue's throughput).
     *                    Only Coordis consumers count: a client that removes messages its own way leaves it low
     * @param consumers   registered consumers, live and dead (a dead one stays listed for a while after its
     *                    messages were put back)
     */
    public QueueStats {
        consumers = List.copyOf(consumers);
    }

    /**
     * Messages held by consumers (delivered, not yet settled), over all consumers.
     *
     * @return the sum of the consumers' in-flight messages
     */
    public long inFlight() {
        return consumers.stream().mapToLong(ConsumerStats::inFlight).sum();
    }

    /**
     * One consumer.
     *
     * @param id            the consumer id (the first part of its delivery ids)
     * @param slots         how many deliveries it may hold at once
     * @param inFlight      messages in its processing slots
     * @param lastHeartbeat when it last renewed its heartbeat (server clock)
     * @param alive         whether its heartbeat key exists; when false, sweepers put its messages back
     */
    public record ConsumerStats(String id, int slots, long inFlight, Instant lastHeartbeat, boolean alive) {
    }
}
