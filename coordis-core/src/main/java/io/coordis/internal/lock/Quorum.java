package io.coordis.internal.lock;

import io.coordis.NodeVote;
import java.util.List;

/** The arithmetic of a majority vote over N nodes. */
final class Quorum {
    private Quorum() {
    }

    /** N/2 + 1. */
    static int of(int nodes) {
        return nodes / 2 + 1;
    }

    static long count(List<NodeVote> votes, NodeVote.Vote vote) {
        return votes.stream().filter(v -> v.vote() == vote).count();
    }

    /**
     * Whether "held by another" answers alone rule out a majority for anybody else: more than N − quorum
     * nodes said so. Otherwise a failed vote was decided by errors, timeouts or refusals.
     */
    static boolean busy(List<NodeVote> votes) {
        return count(votes, NodeVote.Vote.HELD_BY_OTHER) > votes.size() - of(votes.size());
    }
}
