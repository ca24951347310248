package io.coordis.election;

import io.coordis.internal.Timer;
import io.coordis.internal.lease.LeaseSession;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A leadership on its {@link LeaseSession}: renewed every TTL/3, valid until start of the last successful
 * renewal + TTL − drift, lost when a renewal says "not yours" or that deadline passes without one. A term lost
 * by its deadline is cleared at Redis in the background (a late renewal may have kept it alive), so that
 * another candidate need not wait for its TTL.
 */
final class HeldLeadership implements Leadership {
    private final LeaseElection election;
    private final long term;
    private final LeaseSession session;
    private final CompletionStage<Leadership> lost;

    HeldLeadership(LeaseElection election, long term, long start, ElectionOptions options, Timer timer) {
        this.election = election;
        this.term = term;
        this.session = new LeaseSession(timer, "leadership of '" + election.name() + "' (term " + term + ")", start,
                LeaseSession.Terms.renewed(options.validityNanos(), options.renewInterval().toNanos()),
                () -> election.renew(term), this::onLoss);
        this.lost = session.lost().thenApply(v -> this);
    }

    @Override
    public String name() {
        return election.name();
    }

    @Override
    public String candidateId() {
        return election.candidateId();
    }

    @Override
    public long term() {
        return term;
    }

    @Override
    public boolean isHeld() {
        return session.isHeld();
    }

    @Override
    public Duration remainingValidity() {
        return session.remaining();
    }

    @Override
    public CompletionStage<Leadership> lost() {
        return lost;
    }

    @Override
    public boolean resign() {
        if (session.end() != LeaseSession.State.HELD) {
            return false;
        }
        election.ended(this, "resigned");
        return election.resignAtRedis(term);
    }

    private void onLoss(LeaseSession.Loss why) {
        if (why == LeaseSession.Loss.DEADLINE) {
            election.resignInBackground(term);
            election.ended(this, "its term's deadline passed without a successful renewal");
        } else {
            election.ended(this, "Redis no longer holds this term (it expired or another candidate took over)");
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + election.name() + ", term " + term + ", " + session + "]";
    }
}
