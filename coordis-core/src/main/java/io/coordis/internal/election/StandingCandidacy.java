package io.coordis.internal.election;

import io.coordis.CoordisException;
import io.coordis.election.Candidacy;
import io.coordis.election.CandidacyListener;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * A {@link Candidacy} on the public election API alone: a {@link LeaderElection#campaignAsync} without a deadline,
 * the won leadership's {@link Leadership#lost()} notice, and the next campaign; pauses (after a failure, while standing
 * aside) are the client timer's {@link Timer#delay}. Nothing blocks and no thread is started: each step runs where
 * the step before it completed, on the client's callback executor or timer.
 *
 * <p>State changes and the listener calls they cause are decided under this object's monitor, so the calls keep the
 * order of the changes on the listener's lane ({@link Timer#inOrder()}): a grant is revoked only after it was
 * granted. A campaign is always either {@link #pending} or has handed its leadership to {@link #granted}, so that
 * {@link #close()} finds whatever is under way. Thread-safe.
 */
public final class StandingCandidacy implements Candidacy {
    private static final Logger log = LoggerFactory.getLogger(StandingCandidacy.class);
    /** A campaign's wait: until elected (the campaign rides out outages meanwhile). */
    private static final Duration UNTIL_ELECTED = ChronoUnit.FOREVER.getDuration();
    /** After a campaign failed for a reason waiting does not mend, the pause before the next. */
    static final Duration RETRY = Duration.ofSeconds(1);

    private final LeaderElection election;
    private final Timer timer;
    private final CandidacyListener listener;
    /** The listener's calls, one at a time and in order, on the client's callback executor. */
    private final Executor calls;
    /** The thread in a listener call now, so that a close from the listener does not wait for itself. */
    private volatile Thread calling;
    /** The campaign under way, or the pause before the next one; {@code null} while leading. Guarded by this. */
    private CompletableFuture<?> pending;
    /** The leadership granted and not yet revoked. Guarded by this. */
    private Leadership granted;
    private boolean closed; // guarded by this

    private StandingCandidacy(LeaderElection election, Timer timer, CandidacyListener listener) {
        this.election = Objects.requireNonNull(election, "election must not be null");
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        this.listener = Objects.requireNonNull(listener, "listener must not be null");
        this.calls = timer.inOrder();
    }

    /**
     * A candidacy of {@code election} on the client's {@code timer}, its first campaign started.
     *
     * @throws IllegalStateException when the election was closed
     */
    public static StandingCandidacy start(LeaderElection election, Timer timer, CandidacyListener listener) {
        StandingCandidacy candidacy = new StandingCandidacy(election, timer, listener);
        candidacy.campaign();
        return candidacy;
    }

    @Override
    public LeaderElection election() {
        return election;
    }

    @Override
    public Optional<Leadership> leadership() {
        Leadership mine;
        synchronized (this) {
            mine = granted;
        }
        return mine != null && mine.isHeld() ? Optional.of(mine) : Optional.empty();
    }

    /** Starts the next campaign, unless closed. */
    private void campaign() {
        CompletableFuture<Optional<Leadership>> campaign;
        synchronized (this) {
            if (closed || timer.isClosed()) {
                return;
            }
            campaign = election.campaignAsync(UNTIL_ELECTED);
            pending = campaign;
        }
        campaign.whenComplete((won, failure) -> campaigned(campaign, won, failure));
    }

    /** {@link #campaign()} after a first one: a campaign that cannot start any more ends the candidacy's campaigns. */
    private void campaignAgain() {
        try {
            campaign();
        } catch (IllegalStateException e) {
            log.warn("the candidacy of '{}' in '{}' stopped campaigning: {}", election.candidateId(), election.name(),
                    e.getMessage());
        }
    }

    private void campaigned(CompletableFuture<?> campaign, Optional<Leadership> won, Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof CancellationException) {
            return; // closed: close() took care of it
        }
        Leadership leadership = won == null ? null : won.orElse(null);
        synchronized (this) {
            if (closed || pending != campaign) {
                return; // close() resigned what it won
            }
            pending = null;
            if (leadership != null) {
                granted = leadership;
                call(l -> l.granted(leadership), "granted");
            }
        }
        if (leadership != null) {
            leadership.lost().whenComplete((l, f) -> lost(leadership));
        } else if (cause == null) {
            campaignAgain(); // the campaign has no deadline; should it end empty anyway, the next one follows
        } else if (!timer.isClosed()) {
            log.warn("a campaign of '{}' in '{}' failed; campaigning again in {}: {}", election.candidateId(),
                    election.name(), Durations.format(RETRY), cause.getMessage());
            if (cause instanceof CoordisException e) {
                synchronized (this) {
                    if (!closed) {
                        call(l -> l.failed(e), "failed");
                    }
                }
            }
            pause(RETRY);
        }
    }

    /** The granted {@code leadership} was lost: revokes it and campaigns again. */
    private void lost(Leadership leadership) {
        synchronized (this) {
            if (granted != leadership) {
                return; // resigned or closed meanwhile: revoked there
            }
            granted = null;
            call(l -> l.revoked(leadership), "revoked");
        }
        log.info("'{}' campaigns again in '{}' after losing term {}", election.candidateId(), election.name(),
                leadership.term());
        campaignAgain();
    }

    /** Campaigns again after {@code pause}, unless closed meanwhile. */
    private void pause(Duration pause) {
        synchronized (this) {
            if (closed || timer.isClosed()) {
                return;
            }
            CompletableFuture<Void> delay = timer.delay(pause.toNanos());
            pending = delay;
            delay.thenRun(() -> timer.deliver(this::campaignAgain));
        }
    }

    @Override
    public void resign(Duration standAside) {
        Durations.notNegative(standAside, "stand-aside time");
        synchronized (this) {
            if (closed || granted == null) {
                return;
            }
            Leadership leadership = granted;
            granted = null;
            end(leadership).thenRun(() -> pause(standAside));
        }
    }

    @Override
    public void close() {
        CompletableFuture<Void> ended = null;
        CompletableFuture<?> under;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            under = pending;
            pending = null;
            if (granted != null) {
                ended = end(granted);
                granted = null;
            }
        }
        if (under != null && !under.cancel(false) && !under.isCompletedExceptionally()
                && under.getNow(null) instanceof Optional<?> won && won.orElse(null) instanceof Leadership l) {
            resignQuietly(l); // won in this instant, never granted
        }
        if (ended != null && calling != Thread.currentThread()) {
            try {
                ended.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause()); // end() completes normally
            }
        }
    }

    /**
     * Revokes {@code leadership} on the listener's lane and then resigns it at Redis; completes when both are done.
     * Called under the monitor.
     */
    private CompletableFuture<Void> end(Leadership leadership) {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        calls.execute(() -> {
            try {
                run(l -> l.revoked(leadership), "revoked");
                resignQuietly(leadership);
            } finally {
                ended.complete(null);
            }
        });
        return ended;
    }

    /** Hands {@code call} to the listener's lane. Called under the monitor, so calls keep the order of the changes. */
    private void call(Consumer<CandidacyListener> call, String what) {
        calls.execute(() -> run(call, what));
    }

    private void run(Consumer<CandidacyListener> call, String what) {
        calling = Thread.currentThread();
        try {
            call.accept(listener);
        } catch (RuntimeException e) {
            log.warn("the {} call of a candidacy in '{}' failed", what, election.name(), e);
        } finally {
            calling = null;
        }
    }

    private void resignQuietly(Leadership leadership) {
        try {
            leadership.resign();
        } catch (CoordisException e) {
            log.warn("could not resign the leadership of '{}' (term {}): {}; it ends by its TTL", election.name(),
                    leadership.term(), e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "Candidacy[" + election.name() + ", " + election.candidateId() + ", " + leadership()
                .map(l -> "leads with term " + l.term()).orElse("campaigning") + "]";
    }
}
