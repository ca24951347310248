package io.coordis.internal;

import io.coordis.Ticker;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The one source of time and delayed work of a client: every deadline reads {@link #ticker()}, every
 * delayed task goes through {@link #after} or {@link #coarse}, and {@link #execute} runs short tasks on the
 * client's own thread. What reaches the application (futures, loss notices) completes through {@link #deliver}, on
 * the client's callback executor instead, so that application code never runs on the client's own threads. A client
 * owns one and closes it; a test drives one by hand ({@code ManualTimer} in the test sources) to step time instead of
 * sleeping. Tasks must not block. Thread-safe.
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
     * Runs {@code task}, which completes something the application holds (a future, a loss notice), on the client's
     * callback executor: never on the timer's thread or an I/O thread, so what the application chained on it cannot
     * hold up renewals, deadlines or replies. On the calling thread when the executor refuses it (the client's own
     * is shut down with the client). Every completion the application sees goes through here.
     */
    void deliver(Runnable task);

    /**
     * A new lane on {@link #deliver}: the tasks handed to it run one at a time, in order. For the calls of one
     * listener, which must keep their order.
     */
    default Executor inOrder() {
        return new Lane(this);
    }

    /**
     * Completes {@code future} with {@code value}, or with {@code failure} when that is not {@code null}, through
     * {@link #deliver}. For futures handed to applications.
     */
    default <T> void complete(CompletableFuture<T> future, T value, Throwable failure) {
        deliver(failure == null ? () -> future.complete(value) : () -> future.completeExceptionally(failure));
    }

    /**
     * The application's view of {@code source}: completed through {@link #deliver} with {@code view} of its value,
     * or with {@code failed} of its failure; cancelling the view cancels {@code source}. A value that comes when the
     * view is done already (cancelled in that instant) goes to {@code unwanted}, which lets go of what it holds.
     * The one way the engines' futures (acquisitions, campaigns, takes) reach the application.
     */
    default <T, R> CompletableFuture<R> relay(CompletableFuture<T> source, Function<? super T, ? extends R> view,
                                              Function<Throwable, ? extends Throwable> failed,
                                              Consumer<? super T> unwanted) {
        CompletableFuture<R> out = new CompletableFuture<>();
        out.whenComplete((v, f) -> {
            if (out.isCancelled()) {
                source.cancel(false);
            }
        });
        source.whenComplete((value, failure) -> deliver(() -> {
            boolean taken = failure == null ? out.complete(view.apply(value))
                    : out.completeExceptionally(failed.apply(failure));
            if (!taken && value != null) {
                unwanted.accept(value);
            }
        }));
        return out;
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
