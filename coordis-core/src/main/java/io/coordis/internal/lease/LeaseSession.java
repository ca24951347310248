package io.coordis.internal.lease;

import io.coordis.Telemetry;
import io.coordis.Telemetry.Loss;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.ClosedByClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The life of one claim at Redis (a lock's lease, a leadership), in the spirit of etcd's
 * {@code concurrency.Session}: renewal every third of the TTL, the local validity deadline (start of the last
 * successful request + TTL − drift), and one loss signal. A renewal that says "not ours", or a deadline that
 * passes without a successful renewal, loses the claim; ending it (release, resignation) does not.
 *
 * <p>Once not held, never held again: a renewal answering after the deadline does not revive it. Every read
 * checks the deadline on the monotonic clock, so a process resumed after a pause sees the loss on its first
 * check, before the timer could run. One task on the client's {@link Timer} at a time: the next renewal (on
 * the coarse line: most claims end before it), or the deadline while a renewal is in flight, or the deadline
 * alone when nothing renews. Thread-safe.
 */
public final class LeaseSession {
    private static final Logger log = LoggerFactory.getLogger(LeaseSession.class);
    private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** What the session was in, or is in. */
    public enum State { HELD, ENDED, LOST }

    /** Renews the claim at Redis: {@code true} when renewed, {@code false} when it is no longer ours. */
    @FunctionalInterface
    public interface Renewal {
        CompletableFuture<Boolean> renew();
    }

    /** How long a claim lasts and when it renews; {@code renewUntil} (ticker time) stops renewal for good. */
    public record Terms(long validityNanos, long renewEveryNanos, boolean renews, long renewUntil) {
        /** Renewed every {@code renewEveryNanos} for as long as the session is held. */
        public static Terms renewed(long validityNanos, long renewEveryNanos) {
            return new Terms(validityNanos, renewEveryNanos, true, Long.MAX_VALUE);
        }
    }

    /**
     * How long a claim with a TTL of {@code ttlNanos} counts as valid after the start of the request that made or
     * renewed it: the TTL minus the allowance for clock drift between this process and Redis, TTL × {@code
     * clockDriftFactor} + 2 ms (Redlock's rule, used by every claim).
     */
    public static long validityNanos(long ttlNanos, double clockDriftFactor) {
        return ttlNanos - (long) (ttlNanos * clockDriftFactor) - 2_000_000L;
    }

    /**
     * {@code factor} when {@code 0 <= factor < below}, for the options that set the clock drift factor.
     *
     * @throws IllegalArgumentException naming the broken bound and the value
     */
    public static double checkDriftFactor(double factor, double below) {
        if (!(factor >= 0 && factor < below)) {
            throw new IllegalArgumentException("clock drift factor must be at least 0 and below " + below + ", was "
                    + factor);
        }
        return factor;
    }

    private final Timer timer;
    private final String what;
    private final Terms terms;
    private final Renewal renewal;
    private final Consumer<Loss> onLoss;
    private final Telemetry.Hold hold;
    private final CompletableFuture<Void> lost = new CompletableFuture<>();

    private State state = State.HELD;
    private boolean failing;
    private long validUntil;
    private Timer.Handle next;

    /**
     * A session held from {@code start} (ticker time of the request that won the claim).
     *
     * @param what   the claim as logs name it, e.g. {@code lock 'orders'}
     * @param onLoss told once, on the thread that noticed, before {@link #lost()} completes; must not block
     * @param hold   told the renewals, the loss and the end of the session
     */
    public LeaseSession(Timer timer, String what, long start, Terms terms, Renewal renewal, Consumer<Loss> onLoss,
                        Telemetry.Hold hold) {
        this.timer = timer;
        this.hold = hold;
        this.what = what;
        this.terms = terms;
        this.renewal = renewal;
        this.onLoss = onLoss;
        synchronized (this) {
            validUntil = start + terms.validityNanos();
            // a third of the TTL after the request that won it (a claim handed on may have been won a while ago)
            long every = terms.renewEveryNanos();
            planLocked(every > 0 ? Math.max(1, start + every - timer.now()) : every);
        }
    }

    /**
     * The deadline (ticker time) of the claim's validity: while held, as the last successful request set it; once
     * ended or lost, as it was then.
     */
    public synchronized long validUntil() {
        return validUntil;
    }

    /** Held: not ended, not lost, and the deadline not passed (a passed one loses it now). Does not block. */
    public boolean isHeld() {
        return state() == State.HELD;
    }

    /** The state after checking the deadline. */
    public State state() {
        return checked(() -> state);
    }

    /** Validity left by the local deadline; zero once not held. */
    public Duration remaining() {
        return checked(() -> Duration.ofNanos(state == State.HELD ? Math.max(0, validUntil - timer.now()) : 0));
    }

    /**
     * Completes (on the client's callback executor, see {@link Timer#deliver}) when the claim is lost. Never completes
     * after {@link #end()}.
     */
    public CompletionStage<Void> lost() {
        return lost.minimalCompletionStage();
    }

    /**
     * Ends the session (the owner releases the claim): no more renewals, and no loss from now on. Answers the state
     * it was in; a deadline that passed makes that {@link State#LOST} (and is announced).
     */
    public State end() {
        State before = checked(() -> {
            State was = state;
            if (state == State.HELD) {
                state = State.ENDED;
                cancelLocked();
            }
            return was;
        });
        if (before == State.HELD) {
            hold.ended();
        }
        return before;
    }

    /**
     * The owner extended the claim by a request sent at {@code start}: valid until {@code start + validityNanos},
     * the next renewal in {@code renewInNanos}. Ignored once not held; a deadline that passed meanwhile loses it.
     */
    public void extended(long start, long validityNanos, long renewInNanos) {
        checked(() -> {
            if (state == State.HELD) {
                confirmedLocked(start, validityNanos, renewInNanos);
            }
            return null;
        });
    }

    /** The owner learnt that the claim is no longer ours (an extension said so). Ignored once not held. */
    public void notOurs() {
        Loss loss;
        synchronized (this) {
            loss = state == State.HELD ? loseLocked(Loss.NOT_OURS) : null;
        }
        announce(loss);
    }

    private void renew() {
        Loss loss;
        long start;
        boolean send;
        synchronized (this) {
            loss = checkLocked();
            start = timer.now();
            send = state == State.HELD && start - terms.renewUntil() < 0;
            if (state == State.HELD) {
                cancelLocked();
                next = timer.after(validUntil - start, this::checkDeadline); // while the request is in flight
                if (!send) {
                    log.warn("{} reached its maximum hold time; no longer renewed, it ends with its validity", what);
                }
            }
        }
        announce(loss);
        if (!send) {
            return;
        }
        CompletableFuture<Boolean> f;
        try {
            f = renewal.renew();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((renewed, failure) -> answered(start, renewed, failure));
    }

    private void answered(long start, Boolean renewed, Throwable failure) {
        Loss loss;
        Telemetry.Renewal outcome = failure != null ? Telemetry.Renewal.FAILED
                : renewed ? Telemetry.Renewal.RENEWED : Telemetry.Renewal.REFUSED;
        synchronized (this) {
            loss = checkLocked();
            if (state != State.HELD) {
                // ended, lost, or lost just now: nothing to plan
            } else if (failure != null && ClosedByClientException.is(failure)) {
                log.debug("renewing {} stopped: the client is closed", what); // it runs out by its TTL
            } else if (failure != null) {
                if (!failing) {
                    log.warn("renewing {} failed, retrying until its validity ends in {}: {}", what,
                            Durations.format(Duration.ofNanos(validUntil - timer.now())), failure.getMessage());
                } else {
                    log.debug("renewing {} failed again: {}", what, failure.getMessage());
                }
                failing = true;
                planLocked(Math.min(terms.renewEveryNanos() / 3, MAX_RETRY_NANOS));
            } else if (!renewed) {
                loss = loseLocked(Loss.NOT_OURS);
            } else {
                confirmedLocked(start, terms.validityNanos(), terms.renewEveryNanos());
            }
        }
        hold.renewal(outcome);
        announce(loss);
    }

    private void checkDeadline() {
        checked(() -> {
            if (state == State.HELD) {
                planLocked(0); // woken before the deadline (another clock than the timer's): wait again
            }
            return null;
        });
    }

    /** Runs {@code step} under the monitor after checking the deadline, then announces a loss noticed. */
    private <T> T checked(Supplier<T> step) {
        Loss loss;
        T result;
        synchronized (this) {
            loss = checkLocked();
            result = step.get();
        }
        announce(loss);
        return result;
    }

    private void confirmedLocked(long start, long validityNanos, long renewInNanos) {
        validUntil = start + validityNanos;
        if (failing) {
            failing = false;
            log.info("renewing {} works again", what);
        }
        planLocked(renewInNanos);
    }

    /** The one next task: the renewal in {@code renewInNanos} when it comes before the deadline, else the deadline. */
    private void planLocked(long renewInNanos) {
        cancelLocked();
        long now = timer.now();
        long renewAt = now + Math.max(0, renewInNanos);
        if (terms.renews() && renewInNanos > 0 && renewAt - validUntil < 0) {
            next = timer.coarse(renewAt - now, this::renew);
        } else {
            next = timer.after(validUntil - now, this::checkDeadline);
        }
    }

    /** The loss to announce when the deadline passed while held, else {@code null}. */
    private Loss checkLocked() {
        return state == State.HELD && timer.now() - validUntil >= 0 ? loseLocked(Loss.DEADLINE) : null;
    }

    private Loss loseLocked(Loss why) {
        state = State.LOST;
        cancelLocked();
        return why;
    }

    private void cancelLocked() {
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    /** Tells the owner, then completes the signal on the client's callback executor (see {@link Timer#deliver}). */
    private void announce(Loss loss) {
        if (loss == null) {
            return;
        }
        try {
            hold.lost(loss);
            hold.ended();
            onLoss.accept(loss);
        } finally {
            timer.complete(lost, null, null);
        }
    }

    @Override
    public synchronized String toString() {
        return state == State.HELD
                ? "valid " + Durations.format(Duration.ofNanos(Math.max(0, validUntil - timer.now())))
                : state.name().toLowerCase(Locale.ROOT);
    }
}
