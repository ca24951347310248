package io.coordis.internal.contest;

import io.coordis.internal.Timer;

import java.util.concurrent.CompletableFuture;

/**
 * The news a {@link Contest} may be woken by (a release, an announcement): it ends the pause in progress, or, when
 * it comes while a try is out, the next pause at once. A ring that comes at any other time is dropped: the next try
 * sees what it announced. Thread-safe.
 */
final class Bell {
    private final Timer timer;
    // guarded by this
    /** A ring came while a try was out. */
    private boolean rung;
    /** The pause in progress that a ring ends. */
    private CompletableFuture<Boolean> nap;

    Bell(Timer timer) {
        this.timer = timer;
    }

    /** Rings: ends the pause in progress; kept for the next pause only when {@code trying}. */
    void ring(boolean trying) {
        CompletableFuture<Boolean> woken;
        synchronized (this) {
            woken = nap;
            nap = null;
            if (woken == null && trying) {
                rung = true;
            }
        }
        if (woken != null) {
            woken.complete(true);
        }
    }

    /** Forgets a ring kept for the next pause. */
    synchronized void clear() {
        rung = false;
    }

    /** A pause of {@code nanos} that a ring ends early, at once when one was kept; completes with {@code true}. */
    CompletableFuture<Boolean> nap(long nanos) {
        CompletableFuture<Boolean> n = new CompletableFuture<>();
        synchronized (this) {
            if (rung) {
                rung = false;
                return CompletableFuture.completedFuture(true);
            }
            nap = n;
        }
        Timer.Handle due = timer.after(nanos, () -> n.complete(true));
        n.whenComplete((v, f) -> {
            due.cancel();
            synchronized (this) {
                if (nap == n) {
                    nap = null;
                }
            }
        });
        return n;
    }

    /** Ends the pause in progress, for good: the contest is over. */
    void stop() {
        CompletableFuture<Boolean> n;
        synchronized (this) {
            n = nap;
            nap = null;
        }
        if (n != null) {
            n.cancel(false);
        }
    }
}
