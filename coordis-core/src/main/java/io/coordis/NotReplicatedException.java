package io.coordis;

/**
 * A write that had to reach replicas ({@link Replication}) was acknowledged by fewer of them within the wait than
 * asked. The message names the object, the key, both counts and what to check. What became of the write depends
 * on the operation and is said where it is thrown: a lock grant was given back, a queue message was left as the
 * javadoc of the queue's method says. Retrying later may succeed once the replicas catch up.
 */
public final class NotReplicatedException extends CoordisException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final long acknowledged;
    private final int wanted;

    public NotReplicatedException(String node, String key, long acknowledged, int wanted, String message) {
        super(node, message, null);
        this.key = key;
        this.acknowledged = acknowledged;
        this.wanted = wanted;
    }

    /** The Redis key whose write did not reach enough replicas. */
    public String key() {
        return key;
    }

    /** How many replicas acknowledged the write within the wait. */
    public long acknowledged() {
        return acknowledged;
    }

    /** How many were asked for. */
    public int wanted() {
        return wanted;
    }
}
