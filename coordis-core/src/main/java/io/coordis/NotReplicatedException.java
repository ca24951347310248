package io.coordis;

/**
 * A write that had to reach replicas ({@link Replication}) was acknowledged by fewer of them within the wait than
 * asked. The message names the object, the key, both counts and what to check. What became of the write depends
 * on the operation and is said where it is thrown: a lock grant was given back, a queue message was left as the
 * javadoc of the queue's method says. Retrying later may succeed once the replicas catch up.
 */
public final class NotReplicatedException extends CoordisException {
    private static final long serialVersionUID = 1L;

    /** The key whose write did not reach enough replicas. */
    private final String key;
    /** How many replicas acknowledged the write. */
    private final long acknowledged;
    /** How many replicas were asked for. */
    private final int wanted;

    /**
     * A write of {@code key} on {@code node} that only {@code acknowledged} of {@code wanted} replicas acknowledged
     * in time.
     *
     * @param node         the master ({@code host:port}) that took the write; null when unknown
     * @param key          the key written
     * @param acknowledged how many replicas acknowledged it
     * @param wanted       how many were asked for
     * @param message      what happened to the write and what to check
     */
    public NotReplicatedException(String node, String key, long acknowledged, int wanted, String message) {
        super(node, message, null);
        this.key = key;
        this.acknowledged = acknowledged;
        this.wanted = wanted;
    }

    /**
     * The Redis key whose write did not reach enough replicas.
     *
     * @return the key
     */
    public String key() {
        return key;
    }

    /**
     * How many replicas acknowledged the write within the wait.
     *
     * @return the count, below {@link #wanted()}
     */
    public long acknowledged() {
        return acknowledged;
    }

    /**
     * How many were asked for.
     *
     * @return the count asked for
     */
    public int wanted() {
        return wanted;
    }
}
