package io.coordis;

import java.time.Duration;
import java.util.Objects;

/**
 * How many replicas must have a write before it counts: after a lock grant, a leadership term or a queue message
 * is written, the client sends {@code WAIT replicas timeout} on the connection that wrote it, and treats a write
 * that too few replicas acknowledged in time as not done (a lock grant or a term is given back, a queue operation
 * fails with {@link NotReplicatedException}). Immutable and thread-safe.
 *
 * <p>What it buys: Redis replication stays asynchronous. A write acknowledged by {@code replicas} replicas survives
 * a failover that promotes one of them; it is lost when the promoted replica is one that had not acknowledged it,
 * and {@code WAIT} does not undo a write on timeout (hence the give-back). It narrows the window in which a failover
 * loses a grant; it does not close it. See docs/safety.md, "Replicated acquisitions".
 *
 * <p>{@code WAITAOF} (Redis 7.2+) is not used: it is not sent to older servers, and this build is tested against
 * Redis 6.2 and 7.0 only.
 */
public final class Replication {
    /** The longest wait accepted: the wait holds the connection the client's commands share. */
    public static final Duration MAX_TIMEOUT = Duration.ofSeconds(10);
    /** The most replicas a write may be made to wait for. */
    public static final int MAX_REPLICAS = 64;
    private static final Replication NONE = new Replication(0, Duration.ZERO);

    private final int replicas;
    private final Duration timeout;

    private Replication(int replicas, Duration timeout) {
        this.replicas = replicas;
        this.timeout = timeout;
    }

    /**
     * No wait: a write counts once the master has it (the default).
     *
     * @return the replication that waits for no replica
     */
    public static Replication none() {
        return NONE;
    }

    /**
     * Wait, after each write that counts, until {@code replicas} replicas acknowledged it, for at most
     * {@code timeout}.
     *
     * @param replicas how many replicas must acknowledge
     * @param timeout  the longest wait for them
     * @return the replication
     * @throws IllegalArgumentException unless 1 ≤ {@code replicas} ≤ {@link #MAX_REPLICAS} and
     *                                  1 ms ≤ {@code timeout} ≤ {@link #MAX_TIMEOUT}
     */
    public static Replication toReplicas(int replicas, Duration timeout) {
        if (replicas < 1 || replicas > MAX_REPLICAS) {
            throw new IllegalArgumentException("replicas to wait for must be between 1 and " + MAX_REPLICAS
                    + ", was " + replicas + "; use Replication.none() for no wait, or e.g. "
                    + "Replication.toReplicas(1, Duration.ofMillis(50))");
        }
        Objects.requireNonNull(timeout, "replica timeout must not be null; write e.g. Duration.ofMillis(50)");
        if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("replica timeout must be " + (timeout.compareTo(MAX_TIMEOUT) > 0
                    ? "at most " + DurationText.format(MAX_TIMEOUT) : "at least 1ms") + ", was "
                    + DurationText.format(timeout));
        }
        Duration checked = timeout;
        if (checked.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("replica timeout must be whole milliseconds (WAIT counts in "
                    + "milliseconds), was " + DurationText.format(timeout) + "; write e.g. Duration.ofMillis(50)");
        }
        return new Replication(replicas, checked);
    }

    /**
     * Whether writes wait for no replica.
     *
     * @return {@code true} for {@link #none()}
     */
    public boolean isNone() {
        return replicas == 0;
    }

    /**
     * The replicas a write waits for; 0 for {@link #none()}.
     *
     * @return the replica count
     */
    public int replicas() {
        return replicas;
    }

    /**
     * The longest wait for them; zero for {@link #none()}.
     *
     * @return the timeout
     */
    public Duration timeout() {
        return timeout;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Replication r && r.replicas == replicas && r.timeout.equals(timeout);
    }

    @Override
    public int hashCode() {
        return 31 * replicas + timeout.hashCode();
    }

    @Override
    public String toString() {
        return isNone() ? "Replication[none]"
                : "Replication[" + replicas + " replica" + (replicas == 1 ? "" : "s") + " within "
                + DurationText.format(timeout) + "]";
    }
}
