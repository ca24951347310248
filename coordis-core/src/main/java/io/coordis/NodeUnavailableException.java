package io.coordis;

/**
 * A Redis node could not be reached, closed the connection, or did not answer within the command
 * timeout. Retrying later may succeed; nothing was left locked by the failed call beyond its TTL.
 */
public final class NodeUnavailableException extends CoordisException {
    private static final long serialVersionUID = 1L;

    private final boolean timedOut;

    public NodeUnavailableException(String node, String message, Throwable cause) {
        this(node, message, cause, false);
    }

    public NodeUnavailableException(String node, String message, Throwable cause, boolean timedOut) {
        super(node, message, cause);
        this.timedOut = timedOut;
    }

    /** Always: an unreachable or silent node may come back. */
    @Override
    public boolean isTransient() {
        return true;
    }

    /** Whether the node did not answer in time (as opposed to refusing, closing or being unreachable). */
    public boolean timedOut() {
        return timedOut;
    }
}
