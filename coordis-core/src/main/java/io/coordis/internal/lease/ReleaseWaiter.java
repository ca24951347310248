package io.coordis.internal.lease;

import io.coordis.internal.Timer;
import io.coordis.internal.redis.PubSubListener;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits for a claim held by someone else to end: rung by an announcement on the claim's channel (register it
 * as the channel's listener), or by closing the client, or else woken when the holder's TTL runs out, plus
 * jitter so that competing waiters spread out. A ring that comes while nobody waits is kept for the next wait.
 * One wait at a time, as a future ({@link #next}). Thread-safe.
 */
public final class ReleaseWaiter implements PubSubListener {
    /** Upper bound of the random delay added to TTL-based wake-ups. */
    static final long MAX_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long to wait when the holder's key has no expiry (written by something else). */
    static final long NO_EXPIRY_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ReentrantLock lock = new ReentrantLock();
    /** A ring that came while nobody waited, kept for the next wait; guarded by {@code lock}. */
    private boolean pending;
    /** The wait in progress as a future, completed by the next ring; guarded by {@code lock}. */
    private CompletableFuture<Void> waiting;

    @Override
    public void message(String channel, String message) {
        ring();
    }

    /** Closing the client ends the wait: the next try fails naming the closed connection. */
    @Override
    public void closed() {
        ring();
    }

    void ring() {
        CompletableFuture<Void> woken;
        lock.lock();
        try {
            woken = waiting;
            waiting = null;
            if (woken == null) {
                pending = true;
            }
        } finally {
            lock.unlock();
        }
        if (woken != null && !woken.complete(null)) {
            ring(); // that wait had ended just now: keep the ring for the next one
        }
    }

    /**
     * Waits without a thread until rung, or the holder's TTL ({@code holderPttlMillis} as Redis reports it: {@code -1}
     * no expiry, {@code -2} gone) plus jitter runs out, or {@code maxNanos} pass, whichever comes first: completes when
     * rung (on the ringing thread), or else on the timer's thread (or when it closes); consumes the ring. Cancelling
     * the future ends the wait.
     */
    public CompletableFuture<Void> next(Timer timer, long holderPttlMillis, long maxNanos) {
        long nanos = Math.min(maxNanos, untilExpiry(holderPttlMillis));
        CompletableFuture<Void> next = new CompletableFuture<>();
        lock.lock();
        try {
            if (pending || nanos <= 0) {
                pending = false;
                return CompletableFuture.completedFuture(null);
            }
            waiting = next;
        } finally {
            lock.unlock();
        }
        CompletableFuture<Void> due = timer.delay(nanos);
        due.thenRun(() -> next.complete(null));
        next.whenComplete((v, f) -> {
            due.cancel(false);
            lock.lock();
            try {
                if (waiting == next) {
                    waiting = null;
                }
            } finally {
                lock.unlock();
            }
        });
        return next;
    }

    /** Time until a key with {@code pttlMillis} left expires, plus jitter; 0 when it is gone. */
    public static long untilExpiry(long pttlMillis) {
        if (pttlMillis == -2) {
            return 0;
        }
        long base = pttlMillis < 0 ? NO_EXPIRY_RECHECK_NANOS : TimeUnit.MILLISECONDS.toNanos(pttlMillis);
        return base + jitter();
    }

    /** A random delay of 1 ms up to {@link #MAX_JITTER_NANOS}. */
    public static long jitter() {
        return ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1), MAX_JITTER_NANOS);
    }
}
