package io.coordis.election;

import io.coordis.CoordisException;

/**
 * Thrown by {@link LeaderElection#whileLeader} when the leadership ended while the work was running;
 * the work was interrupted.
 */
public final class LeadershipLostException extends CoordisException {
    private static final long serialVersionUID = 1L;

    private final long term;

    public LeadershipLostException(String node, String message, long term) {
        super(node, message, null);
        this.term = term;
    }

    /** The term that was lost. */
    public long term() {
        return term;
    }
}
