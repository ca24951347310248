package io.coordis.election;

import io.coordis.CoordisException;

/**
 * Thrown by {@link LeaderElection#whileLeader} when the leadership ended while the work was running;
 * the work was interrupted.
 */
public final class LeadershipLostException extends CoordisException {
    private static final long serialVersionUID = 1L;

    /** The term that was lost. */
    private final long term;

    /**
     * The loss of the leadership of {@code term}.
     *
     * @param node    the node ({@code host:port}) of the election; null when unknown
     * @param message what was lost, naming the election
     * @param term    the term that was lost
     */
    public LeadershipLostException(String node, String message, long term) {
        super(node, message, null);
        this.term = term;
    }

    /**
     * The term that was lost.
     *
     * @return the term
     */
    public long term() {
        return term;
    }
}
