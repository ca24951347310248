package io.coordis.internal.contest;

import io.coordis.internal.Timer;

import java.util.concurrent.CompletableFuture;

/**
 * The news a {@link Contest} may be woken by (a release, an announcement): it ends the pause in progress, or, when
 * none is, the next pause at once, so that news which comes between a try's answer and the pause after it is not
 * slept through. A try that starts meanwhile {@linkplain #clear clears} it: that try sees what it announced.
 * Thread-safe.
 */
final class Bell {
    private final Timer timer;
    // guarded by this
    /** A ring came while no pause was in progress, since the last try started. */
    private boolean rung;
    /** The pause in progress that a ring ends. */
    private CompletableFuture<Boolean> nap;

    Bell(Timer timer) {
        this.timer = timer;
    }

    /** Rings: ends the pause in progress, or else the next one at once. */
    void ring() {
        CompletableFuture<Boolean> woken;
        synchronized (this) {
            woken = nap;
            nap = null;
            if (woken == null) {
                rung = true;
            }
        }
        if (woken != null) {
            woken.complete(true);
        }
    }

    /** Forgets a ring kept for the next pause: a try is starting, which sees the news itself, or one failed. */
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
