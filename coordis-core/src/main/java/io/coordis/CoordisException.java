package io.coordis;

import java.time.Duration;
import java.util.Optional;

/**
 * Base of the unchecked exceptions Coordis throws when Redis cannot do what was asked: the node is
 * unreachable or too slow, the credentials or permissions are wrong, a key holds the wrong type, or the
 * server refused the command (out of memory, read-only replica, ...).
 *
 * <p>Outcomes such as "the lock is busy" or "timed out waiting" are never exceptions; they are return
 * values. Messages name the node ({@code host:port}) and the cause, and never contain a password.
 *
 * <p>A failure is {@linkplain #isTransient() transient} when it may pass by itself (Redis restarting, a failover, a
 * node not reachable for now); a wait retries such failures until its budget is spent. Any other failure is
 * permanent, and a wait reports it at once.
 */
public class CoordisException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The node ({@code host:port}) the failure came from; null when unknown. */
    private final String node;

    /**
     * A failure of {@code node} that Redis or the connection to it reported.
     *
     * @param node    the node ({@code host:port}) the failure came from; null when unknown
     * @param message what failed, naming the object and the condition (never a password)
     * @param cause   the underlying failure; null when there is none
     */
    public CoordisException(String node, String message, Throwable cause) {
        super(message, cause);
        this.node = node;
    }

    /**
     * Whether the condition may pass by itself: a node unreachable, silent, restarting, loading its data or failing
     * over, a Redlock quorum not reached. A wait ({@code acquire(wait)}, {@code campaign(timeout)},
     * {@code take(wait)}) tries again after such a failure, with a jittered backoff, until its budget is spent, and
     * then reports the last one. Wrong credentials, missing permissions, a key of the wrong type and a Redis out of
     * memory are permanent: reported at once.
     *
     * @return {@code true} when trying again later may succeed; {@code false} here, and in every permanent failure
     */
    public boolean isTransient() {
        return false;
    }

    /**
     * How long the condition is known to last, when it is known: a Redlock node restarted too recently to vote
     * (the restart guard) votes once it has been up for the guard's window. A wait pauses that long, not a backoff.
     *
     * @return how long to wait before trying again, when it is known; empty otherwise
     */
    public Optional<Duration> retryAfter() {
        return Optional.empty();
    }

    /**
     * The Redis node ({@code host:port}) the failure came from, if one is known.
     *
     * @return the node, or empty when the failure is not tied to one
     */
    public Optional<String> node() {
        return Optional.ofNullable(node);
    }
}
