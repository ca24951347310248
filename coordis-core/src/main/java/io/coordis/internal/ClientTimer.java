package io.coordis.internal;

import io.coordis.Ticker;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link Timer} of a client: one scheduler thread for tasks due on time and for short work, a
 * coarse delay line (Netty's {@link HashedWheelTimer}, which comes with Lettuce) for deadlines that are
 * usually cancelled, and a pool whose threads exist only while timeouts fire. A {@code
 * ScheduledThreadPoolExecutor} wakes its worker whenever a new task becomes its earliest (on every
 * short-lived lease, measured as a fifth of the client's CPU in a lock cycle); the wheel costs a queue
 * insertion per deadline and wakes nothing. {@link #deliver} runs on the application's executor, or on a
 * {@link CallbackPool} of the timer's own ({@code coordis-callback-*} threads), which adds a thread when callbacks
 * block. Every thread is a daemon and stops on {@link #close()}; the callback pool runs what it was handed before.
 */
public final class ClientTimer implements Timer {
    /** How late a coarse task may run, at most (plus scheduling delays of the wheel's thread). */
    public static final long TICK_MILLIS = 10;

    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final Ticker ticker;
    private final ScheduledThreadPoolExecutor scheduler;
    private final HashedWheelTimer wheel;
    private final ExecutorService expiry;
    private final Executor callbacks;
    /** The callback pool when it is the timer's own, shut down with it; {@code null} for the application's. */
    private final CallbackPool ownCallbacks;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Set<Runnable> onClose = ConcurrentHashMap.newKeySet();

    /** A timer whose {@link #deliver} runs on a {@link CallbackPool} of its own. */
    public ClientTimer(Ticker ticker) {
        this(ticker, null);
    }

    /**
     * A timer whose {@link #deliver} runs on {@code callbacks}, which the application owns and shuts down; a pool of
     * the timer's own when it is {@code null}.
     */
    public ClientTimer(Ticker ticker, Executor callbacks) {
        this.ticker = ticker;
        int client = CLIENTS.incrementAndGet();
        this.scheduler = new ScheduledThreadPoolExecutor(1, daemons("coordis-timer-" + client));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.wheel = new HashedWheelTimer(daemons("coordis-wheel-" + client), TICK_MILLIS, TimeUnit.MILLISECONDS, 512);
        this.expiry = Executors.newCachedThreadPool(daemons("coordis-timeout-" + client));
        this.ownCallbacks = callbacks == null ? new CallbackPool(daemons("coordis-callback-" + client), this) : null;
        this.callbacks = callbacks == null ? ownCallbacks : callbacks;
    }

    private static ThreadFactory daemons(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, n.incrementAndGet() == 1 ? name : name + "-" + n.get());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public Ticker ticker() {
        return ticker;
    }

    @Override
    public Handle after(long delayNanos, Runnable task) {
        try {
            ScheduledFuture<?> f = scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException closedMeanwhile) {
            return () -> { };
        }
    }

    @Override
    public Handle coarse(long delayNanos, Runnable task) {
        if (closed.get()) {
            return () -> { };
        }
        try {
            Timeout t = wheel.newTimeout(x -> execute(task), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
            return t::cancel;
        } catch (IllegalStateException closedMeanwhile) {
            return () -> { };
        }
    }

    @Override
    public void execute(Runnable task) {
        try {
            scheduler.execute(task);
        } catch (RejectedExecutionException closedMeanwhile) {
            // closed: pending work never runs
        }
    }

    @Override
    public void deliver(Runnable task) {
        try {
            callbacks.execute(task);
        } catch (RejectedExecutionException shutDown) {
            task.run();
        }
    }

    @Override
    public <T> CompletableFuture<T> failAfter(CompletableFuture<T> future, long timeoutNanos) {
        if (future.isDone()) {
            return future;
        }
        Timeout deadline;
        try {
            deadline = wheel.newTimeout(x -> expire(future), Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (IllegalStateException closedMeanwhile) {
            future.completeExceptionally(new TimeoutException());
            return future;
        }
        future.whenComplete((v, f) -> deadline.cancel());
        return future;
    }

    private void expire(CompletableFuture<?> future) {
        try {
            expiry.execute(() -> future.completeExceptionally(new TimeoutException()));
        } catch (RejectedExecutionException closedMeanwhile) {
            future.completeExceptionally(new TimeoutException());
        }
    }

    @Override
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public Handle onClose(Runnable task) {
        Runnable once = task::run; // its own identity, so that the same task may be handed in twice
        onClose.add(once);
        if (closed.get()) {
            runOnClose();
        }
        return () -> onClose.remove(once);
    }

    /** Runs each close task that is still registered, once: whoever removes it runs it. */
    private void runOnClose() {
        for (Runnable task : onClose) {
            if (onClose.remove(task)) {
                task.run();
            }
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            scheduler.shutdownNow();
            wheel.stop();
            expiry.shutdown();
            runOnClose();
            if (ownCallbacks != null) {
                ownCallbacks.shutdown(); // after the close tasks, whose completions it still runs
            }
        }
    }
}
