package io.coordis;

import java.util.Locale;

/**
 * How one Redis node answered one step (acquire, extend) of a Redlock lock.
 *
 * @param node   the node, {@code host:port}
 * @param vote   its answer
 * @param detail what it said in words: the holder's TTL, the error, the timeout
 */
public record NodeVote(String node, Vote vote, String detail) {

    /** The possible answers of one node. */
    public enum Vote {
        /** The node granted (or extended) the lock for this caller. */
        ACQUIRED,
        /** Another holder has the key on this node. */
        HELD_BY_OTHER,
        /** The node restarted too recently to be trusted with a vote (the restart guard). */
        REFUSED_RECENT_RESTART,
        /** The node answered with an error, or could not be reached. */
        ERROR,
        /** The node did not answer within the per-node timeout. */
        TIMEOUT,
        /**
         * The outcome was decided before this node answered (a majority had granted, or could no longer
         * grant), so the caller did not wait for it; a late grant on it is released or expires by its TTL.
         */
        NOT_AWAITED
    }

    @Override
    public String toString() {
        return node + " " + vote.name().toLowerCase(Locale.ROOT).replace('_', ' ')
                + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")");
    }
}
