package io.coordis;

/**
 * A Redis node could not be reached, closed the connection, or did not answer within the command
 * timeout. Retrying later may succeed; nothing was left locked by the failed call beyond its TTL.
 */
public final class NodeUnavailableException extends CoordisException {
    private static final long serialVersionUID = 1L;

    public NodeUnavailableException(String node, String message, Throwable cause) {
        super(node, message, cause);
    }
}
