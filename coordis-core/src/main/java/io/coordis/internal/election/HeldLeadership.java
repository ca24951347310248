package io.coordis.internal.election;

import io.coordis.Telemetry;
import io.coordis.election.ElectionOptions;
import io.coordis.election.Leadership;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.Held;
import io.coordis.internal.lease.LeaseSession;

/**
 * A leadership on its {@link LeaseSession}: renewed every TTL/3, valid until start of the last successful
 * renewal + TTL − drift, lost when a renewal says "not yours" or that deadline passes without one. A term lost
 * by its deadline is cleared at Redis in the background (a late renewal may have kept it alive), so that
 * another candidate need not wait for its TTL.
 */
final class HeldLeadership extends Held<Leadership> implements Leadership {
    private final LeaseElection election;
    private final long term;

    HeldLeadership(LeaseElection election, long term, long start, ElectionOptions options, Timer timer,
                   Telemetry telemetry) {
        super("leadership", election.name(), election.key());
        this.election = election;
        this.term = term;
        hold(this, timer, "leadership of '" + election.name() + "' (term " + term + ")", start,
                LeaseSession.Terms.renewed(options.validityNanos(), options.renewInterval().toNanos()),
                () -> election.renew(term), telemetry, Telemetry.Claim.LEADERSHIP);
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
    public boolean resign() {
        if (session().end() != LeaseSession.State.HELD) {
            return false;
        }
        election.ended(this, "resigned");
        return election.resignAtRedis(term);
    }

    /**
     * Ends this leadership here and resigns it at Redis without waiting (for a campaign cancelled in the instant it
     * won): does not block.
     */
    void resignInBackground() {
        if (session().end() == LeaseSession.State.HELD) {
            election.ended(this, "resigned");
            election.resignInBackground(term);
        }
    }

    @Override
    protected void onLoss(Telemetry.Loss why) {
        if (why == Telemetry.Loss.DEADLINE) {
            election.resignInBackground(term);
            election.ended(this, "its term's deadline passed without a successful renewal");
        } else {
            election.ended(this, "Redis no longer holds this term (it expired or another candidate took over)");
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + election.name() + ", term " + term + ", " + session() + "]";
    }
}
