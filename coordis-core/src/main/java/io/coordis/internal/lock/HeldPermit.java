package io.coordis.internal.lock;

import io.coordis.NodeVote;
import io.coordis.Telemetry;
import io.coordis.internal.Timer;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Permit;

import java.util.List;

/** A {@link HeldLease} on permits of a semaphore: the same session, renewal, loss notice and release. */
final class HeldPermit extends HeldLease implements Permit {
    private final int permits;

    HeldPermit(String name, String key, String token, long fencingToken, int permits, List<NodeVote> votes,
               LockOptions options, long requestStart, LeaseOps ops, Timer timer, Telemetry telemetry) {
        super("semaphore", name, key, token, fencingToken, votes, options, requestStart, ops, timer, telemetry, () -> {
        });
        this.permits = permits;
    }

    @Override
    public int permits() {
        return permits;
    }

    /** Ends the lease here only, for a grant nobody will use (its token is released by the caller). */
    void abandon() {
        session().end();
    }

    @Override
    public String toString() {
        return "Permit[" + key + ", " + permits + " permit" + (permits == 1 ? "" : "s") + ", fence " + fencingToken()
                + ", " + session() + "]";
    }
}
