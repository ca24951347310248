package io.coordis.queue;

import io.coordis.Replication;
import io.coordis.internal.Durations;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How a queue and its consumers behave. Immutable; each {@code with...} method returns a changed copy.
 *
 * <ul>
 *   <li>{@code order} — {@link Order#FIFO} (take from the right) or {@link Order#LIFO}; default FIFO.</li>
 *   <li>{@code maxMessageBytes} — larger payloads are refused before anything is sent; default 1 MiB.</li>
 *   <li>{@code maxAttempts} — a message whose delivery failed this many times (nacked, or its consumer
 *       died) goes to the dead letters; default 5.</li>
 *   <li>{@code heartbeatTtl} — a consumer's heartbeat key lives this long without renewal (renewed every
 *       third of it, on a timer independent of processing); once it is gone, sweepers put the consumer's
 *       in-flight messages back; default 10 s, at least 300 ms, at most 30 days.</li>
 *   <li>{@code sweepInterval} — how often every consumer looks for dead consumers and due delayed retries;
 *       a dead consumer's messages are back in the queue within {@code heartbeatTtl + 2 × sweepInterval};
 *       default 2 s, at least 50 ms, at most 30 days.</li>
 *   <li>{@code slots} — how many deliveries one consumer may hold at once (the largest batch, or the
 *       number of threads taking from it); default 16, 1 to 1024.</li>
 *   <li>{@code replication} — replicas that must have a push before it counts; default the client's (none).</li>
 * </ul>
 */
public final class QueueOptions {
    private static final QueueOptions DEFAULTS = new QueueOptions(Order.FIFO, 1 << 20, 5, Duration.ofSeconds(10),
            Duration.ofSeconds(2), 16, null);
    /** The shortest heartbeat TTL: renewal at a third of it must fit a round trip. */
    public static final Duration MIN_HEARTBEAT_TTL = Duration.ofMillis(300);
    /**
     * The longest heartbeat TTL and sweep interval, 30 days: both are timed in nanoseconds of a monotonic clock,
     * which overflow 292 years after its origin; a bound far below keeps every deadline exact. A dead
     * consumer's messages wait that long before they go back, so longer would never be useful.
     */
    public static final Duration MAX_INTERVAL = Duration.ofDays(30);

    private final Order order;
    private final int maxMessageBytes;
    private final int maxAttempts;
    private final Duration heartbeatTtl;
    private final Duration sweepInterval;
    private final int slots;
    /** {@code null}: the client's default. */
    private final Replication replication;

    private QueueOptions(Order order, int maxMessageBytes, int maxAttempts, Duration heartbeatTtl,
                         Duration sweepInterval, int slots, Replication replication) {
        this.order = order;
        this.maxMessageBytes = maxMessageBytes;
        this.maxAttempts = maxAttempts;
        this.heartbeatTtl = heartbeatTtl;
        this.sweepInterval = sweepInterval;
        this.slots = slots;
        this.replication = replication;
    }

    /**
     * The defaults: FIFO order, 1 MiB messages, 5 attempts, a 10 s heartbeat TTL, a 2 s sweep interval, 16 slots,
     * the client's replication.
     *
     * @return the default options
     */
    public static QueueOptions defaults() {
        return DEFAULTS;
    }

    /**
     * In which order consumers take messages. Default: {@link Order#FIFO}.
     *
     * @param order the order
     * @return a copy with this order
     */
    public QueueOptions withOrder(Order order) {
        return new QueueOptions(Objects.requireNonNull(order, "order must not be null"), maxMessageBytes, maxAttempts,
                heartbeatTtl, sweepInterval, slots, replication);
    }

    /**
     * @param bytes the largest payload accepted by a push, in bytes
     * @return a copy with this maximum
     * @throws IllegalArgumentException unless 1 ≤ bytes ≤ 512 MiB (Redis's own limit)
     */
    public QueueOptions withMaxMessageBytes(int bytes) {
        if (bytes < 1 || bytes > 512 << 20) {
            throw new IllegalArgumentException("max message size must be between 1 byte and 512 MiB, was " + bytes);
        }
        return new QueueOptions(order, bytes, maxAttempts, heartbeatTtl, sweepInterval, slots, replication);
    }

    /**
     * @param attempts how many deliveries a message gets before it is dead-lettered
     * @return a copy with this maximum
     * @throws IllegalArgumentException when {@code attempts} is below 1
     */
    public QueueOptions withMaxAttempts(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("max attempts must be at least 1, was " + attempts);
        }
        return new QueueOptions(order, maxMessageBytes, attempts, heartbeatTtl, sweepInterval, slots, replication);
    }

    /**
     * @param ttl how long a consumer's heartbeat lives without renewal
     * @return a copy with this TTL
     * @throws IllegalArgumentException when {@code ttl} is below {@link #MIN_HEARTBEAT_TTL} or above
     *                                  {@link #MAX_INTERVAL}
     */
    public QueueOptions withHeartbeatTtl(Duration ttl) {
        return new QueueOptions(order, maxMessageBytes, maxAttempts,
                Durations.between(ttl, MIN_HEARTBEAT_TTL, MAX_INTERVAL, "heartbeat ttl"), sweepInterval, slots, replication);
    }

    /**
     * @param interval how often the sweepers look for dead consumers and due retries
     * @return a copy with this interval
     * @throws IllegalArgumentException when {@code interval} is below 50 ms or above {@link #MAX_INTERVAL}
     */
    public QueueOptions withSweepInterval(Duration interval) {
        return new QueueOptions(order, maxMessageBytes, maxAttempts, heartbeatTtl,
                Durations.between(interval, Duration.ofMillis(50), MAX_INTERVAL, "sweep interval"), slots, replication);
    }

    /**
     * @param slots how many deliveries one consumer may hold at once
     * @return a copy with this many slots
     * @throws IllegalArgumentException unless 1 ≤ slots ≤ 1024
     */
    public QueueOptions withSlots(int slots) {
        if (slots < 1 || slots > 1024) {
            throw new IllegalArgumentException("slots must be between 1 and 1024, was " + slots);
        }
        return new QueueOptions(order, maxMessageBytes, maxAttempts, heartbeatTtl, sweepInterval, slots, replication);
    }

    /**
     * Wait after each push until {@code replication}'s replicas have the messages ({@code WAIT} on the connection
     * that pushed them); when too few acknowledged in time, the push fails with a
     * {@link io.coordis.NotReplicatedException}: the messages are in the queue on the master (a push is not taken
     * back, since a consumer may have taken them already) but a failover before they reach a replica may lose
     * them; pushing again may deliver them twice. Takes, acks and nacks do not wait: one lost in a failover makes
     * its message delivered again, which at-least-once delivery allows already, while a lost push is a lost
     * message. Default: the client's ({@code Coordis.Builder.replication}), none unless set.
     *
     * @param replication the replicas a push waits for
     * @return a copy with this replication
     */
    public QueueOptions withReplication(Replication replication) {
        Objects.requireNonNull(replication, "replication must not be null (use Replication.none() for no wait)");
        return new QueueOptions(order, maxMessageBytes, maxAttempts, heartbeatTtl, sweepInterval, slots, replication);
    }

    /**
     * The replication set by {@link #withReplication}; empty when the client's default applies.
     *
     * @return the replication, or empty for the client's
     */
    public Optional<Replication> replication() {
        return Optional.ofNullable(replication);
    }

    /**
     * Which end consumers take from.
     *
     * @return the order
     */
    public Order order() {
        return order;
    }

    /**
     * The largest payload a push accepts.
     *
     * @return the maximum, in bytes
     */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /**
     * How many deliveries a message gets before it is dead-lettered.
     *
     * @return the maximum, at least 1
     */
    public int maxAttempts() {
        return maxAttempts;
    }

    /**
     * How long a consumer's heartbeat lives without renewal; a consumer silent for longer is presumed dead and its
     * messages are put back.
     *
     * @return the TTL
     */
    public Duration heartbeatTtl() {
        return heartbeatTtl;
    }

    /**
     * How often the sweepers look for dead consumers and due delayed retries.
     *
     * @return the interval
     */
    public Duration sweepInterval() {
        return sweepInterval;
    }

    /**
     * How many deliveries one consumer may hold at once (the largest batch, or the number of threads taking from it).
     *
     * @return the slot count, 1 to 1024
     */
    public int slots() {
        return slots;
    }

    @Override
    public String toString() {
        return "QueueOptions[order=" + order + ", maxMessageBytes=" + maxMessageBytes + ", maxAttempts=" + maxAttempts
                + ", heartbeatTtl=" + Durations.format(heartbeatTtl) + ", sweepInterval="
                + Durations.format(sweepInterval) + ", slots=" + slots
                + (replication != null && !replication.isNone() ? ", replication=" + replication : "") + "]";
    }
}
