package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Failures;
import io.coordis.internal.Timer;
import io.coordis.internal.contest.Answer;
import io.coordis.internal.contest.Contest;
import io.coordis.internal.contest.Contestant;
import io.coordis.lock.Lease;

import java.util.concurrent.CompletableFuture;

/**
 * One acquire call in progress, without a thread: a {@link Contest} whose wait in line is a place in the
 * {@link LocalQueue}, whose tries are the lock kind's {@link Contention.Contender}, and whose pauses are its
 * {@link Contention.Pacer}, until granted, the wait runs out, or the caller gives up by cancelling {@link #result}.
 * Transient failures are ridden out while the wait lasts, as the contest does for every wait.
 *
 * <p>Giving up leaves nothing behind: the place in line goes to the next caller, a pause ends (its subscription is
 * closed), and a try in flight is left to answer: a lease it grants is let go at once in the background. The
 * result completes only once the place is let go. Thread-safe.
 */
final class Acquisition implements Contestant<Lease> {
    private final String key;
    private final Contention.Contender contender;
    private final LocalQueue queue;
    private final Timer timer;
    private final long waitNanos;
    private final boolean untilGranted;
    private final Contest<Lease> contest;
    /** The lease; {@code null} when the wait ran out. Cancelling it gives the acquisition up. */
    final CompletableFuture<Lease> result;

    // guarded by this
    private LocalQueue.Permit permit;
    private CompletableFuture<LocalQueue.Permit> place;
    private Contention.Pacer pacer;

    private Acquisition(String key, Contention.Contender contender, LocalQueue queue, Timer timer, long waitNanos,
                        boolean untilGranted, Telemetry telemetry) {
        this.key = key;
        this.contender = contender;
        this.queue = queue;
        this.timer = timer;
        this.waitNanos = waitNanos;
        this.untilGranted = untilGranted;
        this.contest = new Contest<>(this, timer, telemetry.acquiring(contender.name()), waitNanos, untilGranted,
                Contest.Deadline.LAST_TRY, null);
        this.result = contest.outcome();
    }

    /**
     * Starts acquiring: within {@code waitNanos} (0: one try if nobody of this client holds or waits for the lock),
     * again and again until granted when {@code untilGranted}.
     */
    static Acquisition start(String key, Contention.Contender contender, LocalQueue queue, Timer timer,
                             long waitNanos, boolean untilGranted, Telemetry telemetry) {
        Acquisition a = new Acquisition(key, contender, queue, timer, waitNanos, untilGranted, telemetry);
        a.contest.start();
        return a;
    }

    /** A place in line, unless held already; with no wait, only a free one. */
    @Override
    public CompletableFuture<?> enter() {
        synchronized (this) {
            if (permit != null) {
                return READY;
            }
        }
        if (waitNanos == 0) {
            LocalQueue.Permit p = queue.tryEnter(key);
            if (p == null) {
                contest.settle(null);
            } else {
                entered(p);
            }
            return READY;
        }
        CompletableFuture<LocalQueue.Permit> wait = queue.enter(key);
        synchronized (this) {
            if (contest.isOver()) {
                wait.complete(null); // a place that came meanwhile is closed by entered()
            } else {
                place = wait;
            }
        }
        // entered() runs whatever becomes of the future handed back: the contest may cancel that one
        CompletableFuture<Void> ready = new CompletableFuture<>();
        wait.whenComplete((p, f) -> {
            entered(p);
            ready.complete(null);
        });
        return ready;
    }

    private void entered(LocalQueue.Permit p) {
        if (p == null) {
            return; // given up
        }
        synchronized (this) {
            place = null;
            if (!contest.isOver()) {
                permit = p;
                return;
            }
        }
        p.close();
    }

    @Override
    public CompletableFuture<Answer<Lease>> attempt(boolean waits) {
        LocalQueue.Permit p;
        synchronized (this) {
            p = permit;
        }
        return contender.attempt(p, waits).thenApply(a -> {
            if (a.lease() != null) {
                synchronized (this) {
                    permit = null; // the lease owns it now
                }
            }
            return new Answer<>(a.lease(), a.holderMillis(), a.failure());
        });
    }

    /** The pacer's pause; the pacer is started off this thread, which may be a Lettuce I/O thread. */
    @Override
    public CompletableFuture<Boolean> pause(Answer<Lease> busy, long maxNanos) {
        Contention.Attempt last = Contention.Attempt.busy(busy.holderMillis());
        Contention.Pacer p;
        synchronized (this) {
            p = pacer;
        }
        if (p != null) {
            return paced(p, last, maxNanos);
        }
        CompletableFuture<Boolean> paused = new CompletableFuture<>();
        timer.execute(() -> {
            try {
                Contention.Pacer started = contender.pacer();
                synchronized (this) {
                    if (!contest.isOver()) {
                        pacer = started;
                        started = null;
                    }
                }
                if (started != null) {
                    started.close(); // given up meanwhile
                    return;
                }
                CompletableFuture<Boolean> inner = paced(pacer, last, contest.left());
                paused.whenComplete((v, f) -> inner.cancel(false));
                inner.whenComplete((again, f) -> {
                    if (f != null) {
                        paused.completeExceptionally(f);
                    } else {
                        paused.complete(again);
                    }
                });
            } catch (RuntimeException e) {
                paused.completeExceptionally(e); // listening for releases failed: Redis may be on its way back
            }
        });
        if (timer.isClosed()) {
            paused.completeExceptionally(new CoordisException(null, "the client is closed", null));
        }
        return paused;
    }

    /** A pause of {@code p}; when it allows no more retries but the caller waits until granted: back in line. */
    private CompletableFuture<Boolean> paced(Contention.Pacer p, Contention.Attempt last, long maxNanos) {
        CompletableFuture<Boolean> paused = p.pause(last, maxNanos);
        if (!untilGranted) {
            return paused;
        }
        return paused.thenApply(again -> {
            if (!again) {
                leave();
            }
            return again;
        });
    }

    @Override
    public void undo(Lease won) {
        contender.abandon(won);
    }

    @Override
    public Throwable named(Throwable failure) {
        return failure instanceof CoordisException e ? Failures.about(contender.object(), e) : failure;
    }

    @Override
    public void close(Lease won, Throwable failure) {
        leave();
    }

    /** Lets go of the place in line (or the wait for one) and the pacer. */
    private void leave() {
        LocalQueue.Permit p;
        CompletableFuture<LocalQueue.Permit> w;
        Contention.Pacer old;
        synchronized (this) {
            p = permit;
            permit = null;
            w = place;
            place = null;
            old = pacer;
            pacer = null;
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
