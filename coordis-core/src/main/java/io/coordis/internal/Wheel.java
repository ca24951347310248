package io.coordis.internal;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * A coarse delay line for deadlines that may fire up to a tick ({@value #TICK_MILLIS} ms) late and are usually
 * cancelled before they fire, such as a lease's first renewal at a third of its TTL. Scheduling and
 * cancelling cost a queue insertion each and never wake a thread, where a {@code ScheduledThreadPoolExecutor}
 * wakes its worker whenever a new task becomes the earliest — on every short-lived lease, measured as a
 * fifth of the client's CPU in a lock cycle. Tasks run on the wheel's single daemon thread and must only hand
 * work on (to the client's own executor), never block. One wheel per JVM, ticking from its first use.
 * Netty's {@link HashedWheelTimer} (Netty comes with Lettuce). Thread-safe.
 */
public final class Wheel {
    /** How late a task may run, at most (plus scheduling delays of the wheel's thread). */
    public static final long TICK_MILLIS = 10;

    private static final ThreadFactory DAEMON = r -> {
        Thread t = new Thread(r, "coordis-wheel");
        t.setDaemon(true);
        return t;
    };

    private static final class Holder {
        static final HashedWheelTimer WHEEL = new HashedWheelTimer(DAEMON, TICK_MILLIS, TimeUnit.MILLISECONDS, 512);
        static final java.util.concurrent.ExecutorService EXPIRY = java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "coordis-timeout");
            t.setDaemon(true);
            return t;
        });
    }

    /** A scheduled task; cancelling one that ran or was cancelled does nothing. */
    public interface Handle {
        void cancel();
    }

    private Wheel() {
    }

    /**
     * {@code future}, failed with a {@link java.util.concurrent.TimeoutException} unless it completes within
     * {@code timeoutNanos} (up to a tick more): {@code CompletableFuture.orTimeout} for deadlines that are
     * nearly always met. orTimeout's timer thread wakes whenever a new deadline becomes its earliest — on
     * every command sent to an idle connection; here a deadline costs a queue insertion and a cancel. The
     * timeout is completed off the wheel's thread (on a pool whose threads exist only while timeouts fire), so
     * the future's dependents never run on, nor hold up, the wheel.
     */
    public static <T> java.util.concurrent.CompletableFuture<T> failAfter(java.util.concurrent.CompletableFuture<T> future,
                                                                          long timeoutNanos) {
        if (future.isDone()) {
            return future;
        }
        Handle deadline = after(timeoutNanos, () -> Holder.EXPIRY.execute(() ->
                future.completeExceptionally(new java.util.concurrent.TimeoutException())));
        future.whenComplete((v, f) -> deadline.cancel());
        return future;
    }

    /** Runs {@code task} on the wheel's thread after {@code delayNanos} (clamped at 0), up to a tick late. */
    public static Handle after(long delayNanos, Runnable task) {
        Timeout timeout = Holder.WHEEL.newTimeout(t -> task.run(), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return timeout::cancel;
    }
}
