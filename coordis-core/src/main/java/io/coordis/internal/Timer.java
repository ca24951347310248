package io.coordis.internal;

import io.coordis.Ticker;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The one source of time and delayed work of a client: every deadline reads {@link #ticker()}, every
 * delayed task goes through {@link #after} or {@link #coarse}, and {@link #execute} runs short tasks on the
 * client's own thread. A client owns one and closes it; a test drives one by hand ({@code ManualTimer} in the
 * test sources) to step time instead of sleeping. Tasks must not block. Thread-safe.
 */
public interface Timer extends AutoCloseable {

    /** A delayed task; cancelling one that ran or was cancelled does nothing. */
    interface Handle {
        void cancel();
    }

    /** The monotonic clock every deadline of this client is measured on. */
    Ticker ticker();

    /** {@code ticker().read()}. */
    default long now() {
        return ticker().read();
    }

    /** Runs {@code task} on the client's thread after {@code delayNanos} (clamped at 0), on time. */
    Handle after(long delayNanos, Runnable task);

    /**
     * Runs {@code task} on the client's thread after {@code delayNanos} (clamped at 0), up to a tick
     * ({@link ClientTimer#TICK_MILLIS} ms) late. For deadlines that are usually cancelled before they fire
     * (a lease's renewal, a command's timeout): scheduling and cancelling one wakes no thread.
     */
    Handle coarse(long delayNanos, Runnable task);

    /** Runs {@code task} on the client's thread as soon as it is free. */
    void execute(Runnable task);

    /**
     * Completes {@code future} with {@code value}, or with {@code failure} when that is not {@code null}, on the
     * client's thread, so that what the caller chained on it never runs on (and never holds up) an I/O thread;
     * on the calling thread once the timer is closed. For futures handed to applications.
     */
    default <T> void complete(CompletableFuture<T> future, T value, Throwable failure) {
        Runnable task = failure == null ? () -> future.complete(value) : () -> future.completeExceptionally(failure);
        execute(task);
        if (isClosed()) {
            task.run(); // a closed timer drops the task; completing twice does nothing
        }
    }

    /**
     * {@code future}, failed with a {@link TimeoutException} unless it completes within {@code timeoutNanos}
     * (up to a tick more). The failure is completed off the client's thread, so the future's dependents
     * never hold it up.
     */
    <T> CompletableFuture<T> failAfter(CompletableFuture<T> future, long timeoutNanos);

    /** Whether {@link #close()} was called: tasks handed in afterwards do not run. */
    boolean isClosed();

    /**
     * Runs {@code task} once when this timer closes, on the closing thread, or at once on the caller's if it
     * is closed already; cancelling the handle forgets it. For waits that end with the client. Must not block.
     */
    Handle onClose(Runnable task);

    /**
     * A pause without a thread: completes on the client's thread after {@code delayNanos} (clamped at 0), on
     * time, or on the closing thread when the timer closes first. Cancelling it forgets the task.
     */
    default CompletableFuture<Void> delay(long delayNanos) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Handle due = after(delayNanos, () -> done.complete(null));
        Handle closing = onClose(() -> done.complete(null));
        done.whenComplete((v, f) -> {
            due.cancel();
            closing.cancel();
        });
        return done;
    }

    /** Stops the timer; pending tasks never run. Idempotent. */
    @Override
    void close();
}
