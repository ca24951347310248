package io.coordis.internal;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client's own callback executor: one thread while callbacks return, and one more each time tasks have waited
 * {@link #STALL_NANOS} behind threads that all stayed in their callbacks (a callback that blocks). So a burst of
 * thousands of quick completions costs no thread beyond the first, and a callback that blocks delays the others by
 * about {@link #STALL_NANOS}, however long it blocks. Tasks run in the order they came as long as no callback blocks.
 * Threads end after a minute idle, and the extra ones as soon as nothing waits. While tasks wait, a check runs on the
 * client's timer every {@link #STALL_NANOS}; otherwise none. Thread-safe.
 */
final class CallbackPool implements Executor {
    /** How long tasks wait behind callbacks that do not return before another thread takes them. */
    static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final ThreadPoolExecutor threads;
    private final Timer timer;
    /** Whether a check is due on the timer; one at a time. */
    private final AtomicBoolean watching = new AtomicBoolean();
    /** Tasks completed at the previous check; written by whoever starts a check, then by the check in turn. */
    private volatile long completedBefore;

    CallbackPool(ThreadFactory factory, Timer timer) {
        // the queue is unbounded, so the pool grows only when a check raises its core size
        this.threads = new ThreadPoolExecutor(1, Integer.MAX_VALUE, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                factory);
        this.threads.allowCoreThreadTimeOut(true);
        this.timer = timer;
    }

    /** Runs {@code task} on a thread of the pool; throws {@code RejectedExecutionException} once shut down. */
    @Override
    public void execute(Runnable task) {
        threads.execute(task);
        if (watching.compareAndSet(false, true)) {
            completedBefore = threads.getCompletedTaskCount();
            timer.coarse(STALL_NANOS, this::check);
        }
    }

    private void check() {
        if (threads.isShutdown()) {
            return;
        }
        long completed = threads.getCompletedTaskCount();
        boolean waiting = !threads.getQueue().isEmpty();
        if (waiting && completed == completedBefore) {
            // no thread finished a task since the last check while tasks wait: each is held in a callback
            threads.setCorePoolSize(threads.getPoolSize() + 1);
        } else if (!waiting) {
            threads.setCorePoolSize(1); // the extra threads end when they come back idle
            watching.set(false);
            if (threads.getQueue().isEmpty() || !watching.compareAndSet(false, true)) {
                return; // a task that came meanwhile started its own check
            }
        }
        completedBefore = completed;
        timer.coarse(STALL_NANOS, this::check);
    }

    /** Runs what was handed in, then ends the threads; later tasks are refused. */
    void shutdown() {
        threads.shutdown();
    }
}
