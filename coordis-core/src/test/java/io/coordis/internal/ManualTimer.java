package io.coordis.internal;

import io.coordis.Ticker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * A {@link Timer} whose time moves only when a test calls {@link #advance}: due tasks then run on the
 * calling thread, in order of their deadlines. {@link #execute} and {@link #deliver} run their task at the next
 * {@link #advance} or {@link #runPending}, never inside the caller; {@link #deliver} runs it at once once closed.
 * Thread-safe.
 */
public final class ManualTimer implements Timer {
    private record Task(long due, long seq, Runnable run) {
    }

    private final PriorityQueue<Task> tasks =
            new PriorityQueue<>(Comparator.comparingLong(Task::due).thenComparingLong(Task::seq));
    private final List<Runnable> onClose = new ArrayList<>();
    private long now;
    private long seq;
    private boolean closed;

    public ManualTimer() {
        this(1_000_000_000L);
    }

    public ManualTimer(long startNanos) {
        this.now = startNanos;
    }

    @Override
    public Ticker ticker() {
        return () -> {
            synchronized (ManualTimer.this) {
                return now;
            }
        };
    }

    @Override
    public synchronized Handle after(long delayNanos, Runnable task) {
        if (closed) {
            return () -> { };
        }
        Task t = new Task(now + Math.max(0, delayNanos), seq++, task);
        tasks.add(t);
        return () -> {
            synchronized (ManualTimer.this) {
                tasks.remove(t);
            }
        };
    }

    @Override
    public Handle coarse(long delayNanos, Runnable task) {
        return after(delayNanos, task);
    }

    @Override
    public void execute(Runnable task) {
        after(0, task);
    }

    @Override
    public void deliver(Runnable task) {
        synchronized (this) {
            if (!closed) {
                after(0, task);
                return;
            }
        }
        task.run();
    }

    @Override
    public <T> CompletableFuture<T> failAfter(CompletableFuture<T> future, long timeoutNanos) {
        if (future.isDone()) {
            return future;
        }
        Handle h = after(timeoutNanos, () -> future.completeExceptionally(new TimeoutException()));
        future.whenComplete((v, f) -> h.cancel());
        return future;
    }

    /** Moves time forward by {@code d}, running every task that falls due on the way, at its own time. */
    public void advance(Duration d) {
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.due() > target) {
                    now = target;
                    return;
                }
                tasks.poll();
                now = Math.max(now, next.due());
            }
            next.run().run();
        }
    }

    /** Runs the tasks due now (those handed to {@link #execute} among them) without moving time. */
    public void runPending() {
        advance(Duration.ZERO);
    }

    /** How many tasks wait. */
    public synchronized int pending() {
        return tasks.size();
    }

    @Override
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public Handle onClose(Runnable task) {
        Runnable once = task::run;
        synchronized (this) {
            if (!closed) {
                onClose.add(once);
                return () -> {
                    synchronized (ManualTimer.this) {
                        onClose.remove(once);
                    }
                };
            }
        }
        task.run();
        return () -> { };
    }

    @Override
    public void close() {
        List<Runnable> run;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            tasks.clear();
            run = new ArrayList<>(onClose);
            onClose.clear();
        }
        run.forEach(Runnable::run);
    }

    /** The tasks' deadlines from now, earliest first (for assertions). */
    public synchronized List<Duration> deadlines() {
        List<Duration> out = new ArrayList<>();
        tasks.stream().sorted(Comparator.comparingLong(Task::due))
                .forEach(t -> out.add(Duration.ofNanos(t.due() - now)));
        return out;
    }
}
