package io.coordis.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A queue as read from Redis: its figures come from one atomic read, its consumers' slots from one more per
 * consumer. Immutable.
 *
 * @param name              the queue's name (its list key)
 * @param depth             messages ready to be taken
 * @param oldestReadyAge    how long the oldest ready message has waited, by the enqueue time Coordis
 *                          producers record; empty when the queue is empty or that message was pushed by
 *                          another client (a plain {@code LPUSH})
 * @param inFlight          messages delivered to consumers and not yet settled
 * @param oldestInFlightAge how long the oldest in-flight message has been in its slot, to the second
 *                          ({@code OBJECT IDLETIME} of the slot: commands that read a slot, such as
 *                          {@code coordis queue stats}, restart it); empty when nothing is in flight or the
 *                          server cannot tell
 * @param overdue           in-flight messages held by dead consumers (heartbeat expired): the next sweep
 *                          puts them back in the queue. Coordis recovers by heartbeats, not by a
 *                          per-message deadline, so a slow live consumer is never overdue
 * @param deadLetters       messages in the dead letters {@code {name}:dead}
 * @param delayed           nacked messages waiting for their delay to pass
 * @param settled           messages settled for good, ever: acked, or dead-lettered by a nack or a sweep
 *                          ({@code {name}:settled}, raised by Coordis consumers only); its change between two
 *                          reads is the queue's throughput
 * @param consumers         registered consumers, live and dead, by id
 */
public record QueueState(String name, long depth, Optional<Duration> oldestReadyAge, long inFlight,
                         Optional<Duration> oldestInFlightAge, long overdue, long deadLetters, long delayed,
                         long settled, List<ConsumerState> consumers)
        implements ObjectState {

    /**
     * Copies the consumers, so the state cannot change.
     *
     * @param name              the queue's name (its list key)
     * @param depth             messages ready to be taken
     * @param oldestReadyAge    how long the oldest ready message has waited, by the enqueue time Coordis
     *                          producers record; empty when the queue is empty or that message was pushed by
     *                          another client (a plain {@code LPUSH})
     * @param inFlight          messages delivered to consumers and not yet settled
     * @param oldestInFlightAge how long the oldest in-flight message has been in its slot, to the second
     *                          ({@code OBJECT IDLETIME} of the slot: commands that read a slot, such as
     *                          {@code coordis queue stats}, restart it); empty when nothing is in flight or the
     *                          server cannot tell
     * @param overdue           in-flight messages held by dead consumers (heartbeat expired): the next sweep
     *                          puts them back in the queue. Coordis recovers by heartbeats, not by a
     *                          per-message deadline, so a slow live consumer is never overdue
     * @param deadLetters       messages in the dead letters {@code {name}:dead}
     * @param delayed           nacked messages waiting for their delay to pass
     * @param settled           messages settled for good, ever: acked, or dead-lettered by a nack or a sweep
     *                          ({@code {name}:settled}, raised by Coordis consumers only); its change between two
     *                          reads is the queue's throughput
     * @param consumers         registered consumers, live and dead, by id
     */
    public QueueState {
        consumers = List.copyOf(consumers);
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.QUEUE;
    }

    /**
     * One registered consumer.
     *
     * @param id                the consumer id
     * @param slots             how many deliveries it may hold at once
     * @param inFlight          deliveries in its slots
     * @param oldestInFlightAge as {@link QueueState#oldestInFlightAge()}, for this consumer
     * @param lastHeartbeat     when it last renewed its heartbeat (server clock)
     * @param heartbeatAge      the server's clock minus {@code lastHeartbeat}
     * @param alive             whether its heartbeat key exists; when false sweepers put its messages back
     */
    public record ConsumerState(String id, int slots, long inFlight, Optional<Duration> oldestInFlightAge,
                                Instant lastHeartbeat, Duration heartbeatAge, boolean alive) {
    }
}
