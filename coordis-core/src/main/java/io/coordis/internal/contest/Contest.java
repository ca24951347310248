package io.coordis.internal.contest;

import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.MeasuredWait;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One wait for something others may hold, without a thread: enter (a place in line, a free slot), try at Redis,
 * and while busy pause (a release announced, the holder's TTL, the timer) and try again, until won, the deadline,
 * a failure or the caller's cancel. Locks, semaphores, campaigns and reliable takes all wait through this one
 * engine; a {@link Contestant} says how each tries, pauses and lets go. Each step runs on whichever thread has the
 * news (a reply, a message, the timer) and takes the next step there.
 *
 * <p>Outages: a try or pause that fails {@linkplain Outages#ridesOut transiently} (Redis restarting, a failover,
 * Redlock nodes inside the restart guard's window) is made again after {@link Outages#pauseNanos} while the wait
 * lasts; a permanent failure, any failure once the wait is spent, and any failure of a call that may not wait end
 * the contest with it.
 *
 * <p>The deadline: with {@link Deadline#LAST_TRY} it ends a wait in line, and after the first try each pause lasts
 * at most the time left and a last try decides; with {@link Deadline#CUTS_WAITS} it ends any wait but a try out
 * (whose answer decides), with the last outage's failure if Redis was unavailable until then.
 *
 * <p>The end: a try is never cut short; a win it brings after the contest ended is {@linkplain Contestant#undo
 * undone}. The contestant's {@link Contestant#close} lets go of what it holds once no try is out, and only then
 * does {@link #outcome()} complete (at once when the caller cancelled it), so a caller that sees the outcome never
 * finds the contest's place still taken. Each contest is told to its {@link Telemetry.Wait} once. Thread-safe.
 *
 * @param <T> what is contested
 */
public final class Contest<T> {
    /** What the deadline ends. */
    public enum Deadline {
        /** The wait in line; after the first try, pauses last at most the time left and a last try decides. */
        LAST_TRY,
        /** Any wait but a try out, whose answer decides. */
        CUTS_WAITS
    }

    private final Contestant<T> contestant;
    private final Timer timer;
    private final Telemetry.Wait telemetry;
    private final long began;
    private final long waitNanos;
    private final long deadline;
    private final boolean untilWon;
    private final boolean bounded;
    private final Deadline cuts;
    /** The outcome when nothing was won: {@code null}, or an empty optional. */
    private final T none;
    /** Completed once, by whoever decides first: a try, the deadline, a failure, the caller. */
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private final CallerFuture<T> outcome = new CallerFuture<>(result);
    private final Bell bell;

    // guarded by this
    private boolean trying;
    private boolean ended;
    private boolean closed;
    /** The wait in progress that the end cuts short: the wait in line or a pause. */
    private CompletableFuture<?> waiting;
    private Timer.Handle expiry;
    /** Transient failures in a row, and the last of them. */
    private int outages;
    private Throwable outage;

    /**
     * A contest of {@code contestant} within {@code waitNanos} (0: one try; {@link Long#MAX_VALUE}: no deadline),
     * again and again until won when {@code untilWon}; {@code none} is the outcome when nothing was won.
     */
    public Contest(Contestant<T> contestant, Timer timer, Telemetry.Wait telemetry, long waitNanos, boolean untilWon,
                   Deadline cuts, T none) {
        this.contestant = contestant;
        this.timer = timer;
        this.telemetry = telemetry;
        this.began = MeasuredWait.start(telemetry, timer.ticker());
        this.waitNanos = waitNanos;
        this.deadline = Durations.saturatedAdd(timer.now(), waitNanos);
        this.untilWon = untilWon;
        this.bounded = !untilWon && waitNanos != Long.MAX_VALUE;
        this.cuts = cuts;
        this.none = none;
        this.bell = new Bell(timer);
    }

    /**
     * The outcome as the caller sees it: what was won, {@code none} when the wait ran out, or the failure.
     * Cancelling it gives the contest up. Complete or cancel it only through the contest.
     */
    public CompletableFuture<T> outcome() {
        return outcome;
    }

    /** Starts the contest: its first try goes out before the deadline can end it, also with no time to wait. */
    public CompletableFuture<T> start() {
        result.whenComplete(this::ended);
        enter();
        if (cuts == Deadline.CUTS_WAITS && bounded) {
            Timer.Handle h = timer.coarse(deadline - timer.now(), this::expired);
            synchronized (this) {
                if (!result.isDone()) {
                    expiry = h;
                    h = null;
                }
            }
            if (h != null) {
                h.cancel();
            }
        }
        return outcome;
    }

    /** Ends the contest with {@code value}, unless it ended already; {@code false} then. */
    public boolean settle(T value) {
        return result.complete(value);
    }

    /** Ends the contest with {@code failure} as it is, unless it ended already; {@code false} then. */
    public boolean fail(Throwable failure) {
        return result.completeExceptionally(failure);
    }

    /** Whether the contest has ended, however. */
    public boolean isOver() {
        return result.isDone();
    }

    /** Nanoseconds left until the deadline ({@link Long#MAX_VALUE} without one; 0 or less once passed). */
    public long left() {
        return untilWon ? Long.MAX_VALUE : deadline - timer.now();
    }

    /**
     * News that the thing may be free (a release, an announcement): ends a {@link #nap} in progress, or makes the
     * next one end at once unless a try starts first (the news may have come after the last try's answer).
     */
    public void ring() {
        if (!result.isDone()) {
            bell.ring();
        }
    }

    /**
     * A pause of {@code nanos} on the client's timer that a {@link #ring} ends early (at once when one came since the
     * last try started); completes with {@code true}. For {@link Contestant#pause}.
     */
    public CompletableFuture<Boolean> nap(long nanos) {
        return bell.nap(nanos);
    }

    private void enter() {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<?> gate;
        try {
            gate = contestant.enter();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        if (!gate.isDone()) {
            synchronized (this) {
                if (!result.isDone()) {
                    waiting = gate;
                    if (cuts == Deadline.LAST_TRY && bounded) {
                        // the wait in line is usually ended by the place, not by the deadline
                        expiry = timer.coarse(deadline - timer.now(), this::expired);
                    }
                }
            }
        }
        gate.whenComplete((v, f) -> {
            if (f == null) {
                attempt();
            } else if (!cancelled(f)) {
                result.completeExceptionally(f);
            }
        });
    }

    private void attempt() {
        Timer.Handle lineEnds = null;
        bell.clear();
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            trying = true;
            waiting = null;
            if (cuts == Deadline.LAST_TRY) {
                // from here on, the deadline is kept between tries: a try under way is never cut short
                lineEnds = expiry;
                expiry = null;
            }
        }
        if (lineEnds != null) {
            lineEnds.cancel();
        }
        CompletableFuture<Answer<T>> answer;
        try {
            answer = contestant.attempt(untilWon || deadline - timer.now() > 0);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete(this::answered);
    }

    private void answered(Answer<T> answer, Throwable failure) {
        T won = failure == null ? answer.won() : null;
        if (won != null && !result.complete(won)) {
            contestant.undo(won); // given up while the try was out
        }
        boolean over;
        synchronized (this) {
            trying = false;
            over = result.isDone();
            if (!over) {
                Throwable f = failure != null ? failure : answer.failure();
                if (f == null) {
                    outages = 0;
                    outage = null;
                }
            }
        }
        if (over) {
            closeOnce();
            return;
        }
        if (failure != null) {
            outage(failure);
        } else if (answer.failure() != null) {
            outage(answer.failure());
        } else if (!untilWon && deadline - timer.now() <= 0) {
            result.complete(none); // busy until the end
        } else {
            pause(answer);
        }
    }

    private void pause(Answer<T> busy) {
        CompletableFuture<Boolean> paused;
        try {
            paused = contestant.pause(busy, left());
        } catch (RuntimeException e) {
            outage(e);
            return;
        }
        synchronized (this) {
            if (!result.isDone()) {
                waiting = paused;
            } else {
                paused.cancel(false);
                return;
            }
        }
        paused.whenComplete((again, f) -> {
            if (cancelled(f)) {
                return; // given up
            }
            if (f != null) {
                outage(f);
            } else if (again) {
                attempt();
            } else if (untilWon) {
                enter(); // no more tries allowed here, but the caller waits until won: from the start
            } else {
                result.complete(none);
            }
        });
    }

    /** A try or a pause failed: ridden out while the wait lasts if transient, else the end. */
    private void outage(Throwable failure) {
        if (result.isDone()) {
            return;
        }
        Throwable cause = contestant.named(failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure);
        contestant.failed(cause);
        long left = left();
        if (waitNanos == 0 || left <= 0 || !Outages.ridesOut(cause)) {
            result.completeExceptionally(cause);
            return;
        }
        long pauseNanos;
        bell.clear();
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            outage = cause;
            pauseNanos = Outages.pauseNanos(cause, ++outages, left);
        }
        // a closed client ends the pause at once, and the next try fails naming the closed connection
        CompletableFuture<?> rest = contestant.rings() ? bell.nap(pauseNanos) : timer.delay(pauseNanos);
        synchronized (this) {
            if (result.isDone()) {
                rest.cancel(false);
                return;
            }
            waiting = rest;
        }
        rest.whenComplete((v, f) -> {
            if (f == null) {
                enter();
            }
        });
    }

    /** The deadline: ends the contest unless a try is out, whose answer decides. */
    private void expired() {
        Throwable last;
        synchronized (this) {
            if (trying) {
                return;
            }
            last = outage;
        }
        if (last != null) {
            result.completeExceptionally(last); // Redis was unavailable until the end: say why
        } else {
            result.complete(none);
        }
    }

    /** The result is in, by whoever: told to the telemetry, the waits ended, then what is held let go. */
    private void ended(T value, Throwable failure) {
        Telemetry.Result told = value != null && !value.equals(none) ? Telemetry.Result.ACQUIRED
                : failure instanceof CancellationException ? Telemetry.Result.INTERRUPTED
                : failure != null ? Telemetry.Result.ERROR
                : waitNanos == 0 ? Telemetry.Result.BUSY : Telemetry.Result.TIMEOUT;
        MeasuredWait.ended(telemetry, timer.ticker(), told, began);
        CompletableFuture<?> w;
        Timer.Handle e;
        synchronized (this) {
            w = waiting;
            waiting = null;
            e = expiry;
            expiry = null;
        }
        if (e != null) {
            e.cancel();
        }
        if (w != null) {
            w.cancel(false);
        }
        bell.stop();
        try {
            contestant.ended(value, failure);
        } finally {
            if (result.isCancelled()) {
                outcome.settle(); // the caller gave up: it has its answer now, whatever a try out brings
            }
            synchronized (this) {
                ended = true;
            }
            closeOnce();
        }
    }

    /** Lets the contestant go of what it holds, once it ended and no try is out; then hands out the outcome. */
    private void closeOnce() {
        synchronized (this) {
            if (!ended || trying || closed) {
                return;
            }
            closed = true;
        }
        T value = result.isCompletedExceptionally() ? null : result.getNow(null);
        Throwable failure = result.handle((v, f) -> f).getNow(null);
        try {
            contestant.close(value, failure);
        } finally {
            outcome.settle();
        }
    }

    private static boolean cancelled(Throwable f) {
        return f instanceof CancellationException
                || f instanceof CompletionException c && c.getCause() instanceof CancellationException;
    }
}
