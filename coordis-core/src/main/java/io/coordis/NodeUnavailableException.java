package io.coordis;

/**
 * A Redis node could not be reached, closed the connection, or did not answer within the command
 * timeout. Retrying later may succeed; nothing was left locked by the failed call beyond its TTL.
 */
public final class NodeUnavailableException extends CoordisException {
    private static final long serialVersionUID = 1L;

    /** Whether the node did not answer in time. */
    private final boolean timedOut;
    /** Whether the condition may pass by itself (see {@link #isTransient()}). */
    private final boolean transientCondition;

    /**
     * A node that could not be reached or closed the connection, which may pass by itself.
     *
     * @param node    the node ({@code host:port}); null when unknown
     * @param message what failed, naming the object
     * @param cause   the underlying failure; null when there is none
     */
    public NodeUnavailableException(String node, String message, Throwable cause) {
        this(node, message, cause, false);
    }

    /**
     * A node that could not be reached, closed the connection or did not answer in time, which may pass by itself.
     *
     * @param node     the node ({@code host:port}); null when unknown
     * @param message  what failed, naming the object
     * @param cause    the underlying failure; null when there is none
     * @param timedOut whether the node did not answer in time
     */
    public NodeUnavailableException(String node, String message, Throwable cause, boolean timedOut) {
        this(node, message, cause, timedOut, true);
    }

    /**
     * A node unreachable for a reason that may pass by itself when {@code transientCondition}.
     *
     * @param node               the node ({@code host:port}); null when unknown
     * @param message            what failed, naming the object
     * @param cause              the underlying failure; null when there is none
     * @param timedOut           whether the node did not answer in time
     * @param transientCondition whether the condition may pass by itself
     */
    public NodeUnavailableException(String node, String message, Throwable cause, boolean timedOut,
                                    boolean transientCondition) {
        super(node, message, cause);
        this.timedOut = timedOut;
        this.transientCondition = transientCondition;
    }

    /**
     * Whether the node may come back by itself: yes when it is down, silent, restarting or failing over (and when
     * every connection closed during its handshake: a plain client at a TLS-only port looks so too, but so does a
     * server killed while the client connects); no when the TLS handshake failed (certificates, trust), which only a
     * change of configuration mends.
     */
    @Override
    public boolean isTransient() {
        return transientCondition;
    }

    /**
     * Whether the node did not answer in time (as opposed to refusing, closing or being unreachable).
     *
     * @return {@code true} when the node did not answer in time
     */
    public boolean timedOut() {
        return timedOut;
    }
}
