package io.coordis;

/**
 * Redis received the command and refused it: out of memory ({@code OOM}, see {@code maxmemory}), a
 * read-only replica ({@code READONLY}: the URL points at a replica, or a failover made the master one), or another
 * server error. The message carries the server's own words.
 */
public final class CommandRejectedException extends CoordisException {
    private static final long serialVersionUID = 1L;

    /** Whether the refusal may pass by itself (see {@link #isTransient()}). */
    private final boolean transientCondition;

    /**
     * A permanent refusal.
     *
     * @param node    the node ({@code host:port}) that refused; null when unknown
     * @param message the refused command's object and the server's words
     * @param cause   Redis's error; null when there is none
     */
    public CommandRejectedException(String node, String message, Throwable cause) {
        this(node, message, cause, false);
    }

    /**
     * A refusal that may pass by itself when {@code transientCondition} (see {@link #isTransient()}).
     *
     * @param node               the node ({@code host:port}) that refused; null when unknown
     * @param message            the refused command's object and the server's words
     * @param cause              Redis's error; null when there is none
     * @param transientCondition whether the refusal may pass by itself
     */
    public CommandRejectedException(String node, String message, Throwable cause, boolean transientCondition) {
        super(node, message, cause);
        this.transientCondition = transientCondition;
    }

    /**
     * Whether the refusal may pass by itself: {@code READONLY} from a node that was the master, while Sentinel or
     * Redis Cluster moves the master elsewhere. {@code OOM} is not: memory frees only when keys expire or someone
     * raises {@code maxmemory}, and retrying writes into a full Redis adds to its load.
     */
    @Override
    public boolean isTransient() {
        return transientCondition;
    }
}
