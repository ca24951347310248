package io.coordis.internal.election;

import io.coordis.Telemetry;
import io.coordis.election.ElectionListener;
import io.coordis.election.Leadership;
import io.coordis.internal.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * What one candidate tells about its election: the start and end of its leaderships and the terms that
 * regressed, to its {@link ElectionListener}s, the client's {@link Telemetry} and the log. Keeps the terms it has seen to tell a regression.
 * Listeners are called on the client's callback executor, one call at a time and in order. Thread-safe.
 */
final class CandidateEvents {
    private static final Logger log = LoggerFactory.getLogger(CandidateEvents.class);

    private final String name;
    private final String id;
    /** The listeners' calls, in order, on the client's callback executor. */
    private final Executor listenerCalls;
    private final Telemetry telemetry;
    private final TermHistory terms = new TermHistory();
    private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();

    CandidateEvents(String name, String id, Timer timer, Telemetry telemetry) {
        this.name = name;
        this.id = id;
        this.listenerCalls = timer.inOrder();
        this.telemetry = telemetry;
    }

    void add(ElectionListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    void remove(ElectionListener listener) {
        listeners.remove(listener);
    }

    /** The highest term seen (elected, renewed, observed, or reported busy); 0 if none. */
    long highestTerm() {
        return terms.highest();
    }

    /**
     * This candidate won {@code won} having seen {@code seen} before; {@code regressed} ({@code > 0}) is a term
     * Redis handed out first and the script refused.
     */
    void elected(HeldLeadership won, long seen, long regressed) {
        if (regressed > 0) {
            regression(seen, regressed, "Redis handed out term " + regressed + "; it was refused and the counter "
                    + "raised, this candidate leads with term " + won.term());
        }
        terms.elected(id, won.term());
        log.info("'{}' elected leader of '{}' with term {}", id, name, won.term());
        telemetry.leadership(name, true, won.term());
        dispatch(l -> l.elected(won));
    }

    /** A leadership of this candidate ended for {@code reason}. */
    void ended(Leadership leadership, String reason) {
        if (reason.equals("resigned")) {
            log.debug("'{}' ended term {} of '{}': {}", id, leadership.term(), name, reason);
        } else {
            log.warn("'{}' is no longer leader of '{}' (term {}): {}", id, name, leadership.term(), reason);
        }
        telemetry.leadership(name, false, leadership.term());
        dispatch(l -> l.revoked(leadership, reason));
    }

    /**
     * Another answer named the leader {@code leaderId} with {@code term} (either may be missing): checks the term
     * against those seen, reporting each regressed leadership loudly once. {@code true} when it regressed.
     */
    boolean observed(Object leaderId, Object term) {
        if (!(leaderId instanceof String other) || !(term instanceof Long t)) {
            return false;
        }
        TermHistory.Seen seen = terms.record(other, t);
        if (seen.regressed() && seen.firstReport()) {
            regression(seen.highestBefore(), t, "'" + other + "' leads with term " + t);
        }
        return seen.regressed();
    }

    private void regression(long highestSeen, long got, String what) {
        log.error("TERM REGRESSION in election '{}': {}, but term {} was seen before. Redis lost data (restart "
                + "without persistence, or failover to a replica that lagged); fenced resources refuse terms not "
                + "above the highest they accepted", name, what, highestSeen);
        dispatch(l -> l.termRegressed(highestSeen, got));
    }

    private void dispatch(Consumer<ElectionListener> call) {
        Runnable all = () -> {
            for (ElectionListener l : listeners) {
                try {
                    call.accept(l);
                } catch (RuntimeException e) {
                    log.warn("an election listener of '{}' failed", name, e);
                }
            }
        };
        listenerCalls.execute(all);
    }
}
