package io.coordis.lock;

import io.coordis.CoordisException;
import io.coordis.NodeVote;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A Redlock step could not be decided: fewer than a majority granted it, and too few nodes answered
 * that another holder has it to call it busy — the rest failed, timed out, or were refused by the
 * restart guard. Names every node and how it voted.
 */
public final class QuorumUnavailableException extends CoordisException {
    private static final long serialVersionUID = 1L;

    private final transient List<NodeVote> votes;
    /** How long until a node the restart guard refused may vote; null when none was refused. */
    private final Duration retryAfter;

    /**
     * A Redlock step on {@code what} that no majority decided.
     *
     * @param what   the lock and step, for the message
     * @param quorum how many nodes make a majority
     * @param votes  each node's vote, in the order the nodes were configured
     */
    public QuorumUnavailableException(String what, int quorum, List<NodeVote> votes) {
        this(what, quorum, votes, null);
    }

    /**
     * As above; {@code retryAfter} (may be {@code null}) is how long until a node the restart guard refused may
     * vote.
     *
     * @param what       the lock and step, for the message
     * @param quorum     how many nodes make a majority
     * @param votes      each node's vote, in the order the nodes were configured
     * @param retryAfter how long until a refused node may vote; null when none was refused
     */
    public QuorumUnavailableException(String what, int quorum, List<NodeVote> votes, Duration retryAfter) {
        super(null, what + ": fewer than " + quorum + " of " + votes.size() + " Redis nodes granted it, and too few "
                + "said it is held to call it busy; votes: " + votes + failedNodes(votes), null);
        this.votes = List.copyOf(votes);
        this.retryAfter = retryAfter;
    }

    /** Always: nodes come back, and the restart guard trusts a restarted node once its window has passed. */
    @Override
    public boolean isTransient() {
        return true;
    }

    /** How long until a node that the restart guard refused may vote, when one did. */
    @Override
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    private static String failedNodes(List<NodeVote> votes) {
        List<String> failed = votes.stream()
                .filter(v -> v.vote() == NodeVote.Vote.ERROR || v.vote() == NodeVote.Vote.TIMEOUT)
                .map(NodeVote::node).toList();
        return failed.isEmpty() ? "" : "; failed nodes: " + String.join(", ", failed);
    }

    /**
     * How each node voted, in the order the nodes were configured.
     *
     * @return the votes; {@code null} in a deserialised copy (they are not serialised)
     */
    public List<NodeVote> votes() {
        return votes;
    }
}
