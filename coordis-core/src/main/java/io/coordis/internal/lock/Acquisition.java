package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Failures;
import io.coordis.internal.MeasuredWait;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.lock.Lease;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One acquire call in progress, without a thread: a place in the {@link LocalQueue}, then tries at Redis, paced by
 * the lock's {@link Contention.Pacer}, until granted, the wait runs out, or the caller gives up by cancelling
 * {@link #result}. Each step is a future that completes on whichever thread has the news (a reply on a Lettuce
 * I/O thread, a release in the same process, a pub/sub message, the timer), and that thread takes the next step.
 *
 * <p>A try that fails transiently (Redis restarting, a failover, too few Redlock nodes answering) is made again
 * while the wait lasts, as {@link Outages} says; a permanent failure ends the acquisition at once.
 *
 * <p>Giving up leaves nothing behind: the place in line goes to the next caller, a pause ends (its subscription is
 * closed), and a try in flight is left to answer: a lease it grants is let go at once in the background. A try is
 * never cut short, since its script may run anyway. Thread-safe.
 */
final class Acquisition {
    private final String key;
    private final Contention.Contender contender;
    private final LocalQueue queue;
    private final Timer timer;
    private final long waitNanos;
    private final long deadline;
    private final boolean untilGranted;
    private final Telemetry.Wait telemetry;
    private final long start;
    /** The lease; {@code null} when the wait ran out. Completed once, by this acquisition or by the caller giving up. */
    final CompletableFuture<Lease> result = new CompletableFuture<>();

    // guarded by this
    private LocalQueue.Permit permit;
    private Contention.Pacer pacer;
    /** What the acquisition waits for now, when it may be cut short: its place in line or a pause. */
    private CompletableFuture<?> waiting;
    private Timer.Handle giveUp;
    /** A try is out: the permit and the pacer are closed when it answers, not before. */
    private boolean trying;
    /** Transient failures in a row, which the wait rides out ({@link Outages}). */
    private int outages;

    private Acquisition(String key, Contention.Contender contender, LocalQueue queue, Timer timer, long waitNanos,
                        boolean untilGranted, Telemetry telemetry) {
        this.key = key;
        this.contender = contender;
        this.queue = queue;
        this.timer = timer;
        this.waitNanos = waitNanos;
        this.untilGranted = untilGranted;
        this.telemetry = telemetry.acquiring(contender.name());
        this.start = MeasuredWait.start(this.telemetry, timer.ticker());
        this.deadline = Durations.saturatedAdd(timer.now(), waitNanos);
    }

    /**
     * Starts acquiring: within {@code waitNanos} (0: one try if nobody of this client holds or waits for the lock),
     * again and again until granted when {@code untilGranted}.
     */
    static Acquisition start(String key, Contention.Contender contender, LocalQueue queue, Timer timer,
                             long waitNanos, boolean untilGranted, Telemetry telemetry) {
        Acquisition a = new Acquisition(key, contender, queue, timer, waitNanos, untilGranted, telemetry);
        a.result.whenComplete(a::ended);
        a.enter();
        return a;
    }

    private void enter() {
        if (waitNanos == 0) {
            LocalQueue.Permit p = queue.tryEnter(key);
            if (p == null) {
                result.complete(null);
            } else {
                entered(p);
            }
            return;
        }
        CompletableFuture<LocalQueue.Permit> place = queue.enter(key);
        if (!place.isDone()) {
            synchronized (this) {
                if (result.isDone()) {
                    place.complete(null); // a place that came meanwhile is closed by entered()
                } else {
                    waiting = place;
                    if (!untilGranted) {
                        // the wait in line is usually ended by the place, not by the deadline
                        giveUp = timer.coarse(deadline - timer.now(), () -> result.complete(null));
                    }
                }
            }
        }
        place.whenComplete((p, f) -> {
            if (p != null) {
                entered(p);
            }
        });
    }

    private void entered(LocalQueue.Permit p) {
        Timer.Handle g;
        synchronized (this) {
            if (result.isDone()) {
                p.close();
                return;
            }
            permit = p;
            g = giveUp;
            giveUp = null;
        }
        if (g != null) {
            g.cancel(); // from here on, the deadline is kept between tries: a try under way is never cut short
        }
        attempt();
    }

    private void attempt() {
        CompletableFuture<Contention.Attempt> answer;
        synchronized (this) {
            if (result.isDone()) {
                return; // ended while pausing: cleaned up there
            }
            trying = true;
            waiting = null;
        }
        try {
            // a busy answer is waited on unless the deadline has passed already (0 for a try)
            answer = contender.attempt(permit, untilGranted || deadline - timer.now() > 0);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete(this::answered);
    }

    private void answered(Contention.Attempt attempt, Throwable failure) {
        if (attempt != null && attempt.lease() != null) {
            synchronized (this) {
                trying = false;
                permit = null; // the lease owns it now
            }
            if (!result.complete(attempt.lease())) {
                contender.abandon(attempt.lease()); // given up just now: let go of it at once
                cleanUp();
            }
            return;
        }
        boolean over;
        synchronized (this) {
            trying = false;
            over = result.isDone();
        }
        if (over) {
            cleanUp();
            return;
        }
        if (failure != null) {
            outage(failure);
        } else if (attempt.failure() != null) {
            outage(attempt.failure()); // too few Redlock nodes answered to decide
        } else if (deadline - timer.now() <= 0 && !untilGranted) {
            result.complete(null); // busy until the end: no lease
        } else {
            synchronized (this) {
                outages = 0;
            }
            pause(attempt);
        }
    }

    /**
     * A try failed: a transient failure is tried again after {@link Outages}' pause while the wait lasts; a
     * permanent one, or any once the wait is spent (or for a call that may not wait), ends the acquisition.
     */
    private void outage(Throwable failure) {
        long left = untilGranted ? Long.MAX_VALUE : deadline - timer.now();
        if (waitNanos == 0 || left <= 0 || !Outages.ridesOut(failure)) {
            fail(failure);
            return;
        }
        CompletableFuture<Void> paused;
        synchronized (this) {
            if (result.isDone()) {
                return;
            }
            paused = timer.delay(Outages.pauseNanos(failure, ++outages, left));
            waiting = paused;
        }
        // a closed client ends the pause at once, and the next try fails naming the closed connection
        paused.whenComplete((v, f) -> {
            if (f == null) {
                attempt();
            }
        });
    }

    /** The pause before the next try; the pacer is started off this thread, which may be a Lettuce I/O thread. */
    private void pause(Contention.Attempt last) {
        Contention.Pacer p;
        synchronized (this) {
            p = pacer;
        }
        if (p == null) {
            timer.execute(() -> {
                try {
                    Contention.Pacer started = contender.pacer();
                    synchronized (this) {
                        if (!result.isDone()) {
                            pacer = started;
                            started = null;
                        }
                    }
                    if (started != null) {
                        started.close(); // given up meanwhile
                        return;
                    }
                    pause(last);
                } catch (RuntimeException e) {
                    outage(e); // listening for releases failed: Redis may be on its way back
                }
            });
            if (timer.isClosed()) {
                fail(new CoordisException(null, "the client is closed", null));
            }
            return;
        }
        CompletableFuture<Boolean> paused;
        try {
            paused = p.pause(last, untilGranted ? Long.MAX_VALUE : deadline - timer.now());
        } catch (RuntimeException e) {
            outage(e);
            return;
        }
        synchronized (this) {
            if (result.isDone()) {
                paused.cancel(false);
                return;
            }
            waiting = paused;
        }
        paused.whenComplete((again, f) -> {
            if (f instanceof CancellationException || f instanceof CompletionException c
                    && c.getCause() instanceof CancellationException) {
                return; // given up
            }
            if (f != null) {
                outage(f);
            } else if (again) {
                attempt();
            } else if (untilGranted) {
                restart();
            } else {
                result.complete(null); // busy, and no more retries: no lease
            }
        });
    }

    /** The lock kind allows no more retries but the caller waits until granted: back in line, with a new pacer. */
    private void restart() {
        LocalQueue.Permit p;
        Contention.Pacer old;
        synchronized (this) {
            p = permit;
            old = pacer;
            permit = null;
            pacer = null;
        }
        if (old != null) {
            old.close();
        }
        if (p != null) {
            p.close();
        }
        enter();
    }

    private void fail(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        result.completeExceptionally(cause instanceof CoordisException e ? Failures.about(contender.object(), e) : cause);
    }

    /** The result is in, by whoever: told to the telemetry, and unless granted, everything held is let go. */
    private void ended(Lease lease, Throwable failure) {
        Telemetry.Result told = lease != null ? Telemetry.Result.ACQUIRED
                : failure instanceof CancellationException ? Telemetry.Result.INTERRUPTED
                : failure != null ? Telemetry.Result.ERROR
                : waitNanos == 0 ? Telemetry.Result.BUSY : Telemetry.Result.TIMEOUT;
        MeasuredWait.ended(telemetry, timer.ticker(), told, start);
        cleanUp();
    }

    /**
     * Lets go of the place in line and the pacer, and ends the wait in progress; a try in flight keeps the permit
     * until it answers (then this runs again).
     */
    private void cleanUp() {
        LocalQueue.Permit p = null;
        Contention.Pacer old;
        CompletableFuture<?> w;
        Timer.Handle g;
        synchronized (this) {
            w = waiting;
            waiting = null;
            g = giveUp;
            giveUp = null;
            old = trying ? null : pacer;
            if (!trying) {
                pacer = null;
                p = permit;
                permit = null;
            }
        }
        if (g != null) {
            g.cancel();
        }
        if (w != null) {
            w.cancel(false);
        }
        if (old != null) {
            old.close();
        }
        if (p != null) {
            p.close();
        }
    }
}
