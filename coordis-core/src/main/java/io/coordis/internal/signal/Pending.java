package io.coordis.internal.signal;

import io.coordis.CoordisException;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link io.coordis.signal.Waiter} and a {@link io.coordis.signal.Gathering} share as {@link Fanout.Sink}s: the result waited for, the fanout
 * that feeds it, and the gaps counted meanwhile. Closing cancels the result and closes the fanout, whichever
 * comes first; a client closed first fails the result. Subclasses say which messages complete it. Thread-safe.
 */
abstract class Pending<T> implements Fanout.Sink {
    final CompletableFuture<T> result = new CompletableFuture<>();
    private final AtomicLong gaps = new AtomicLong();
    /** The waiting as messages name it, e.g. {@code waiter on [a, b]}. */
    private final String what;
    /** What ends the wait, e.g. {@code a signal arrived}. */
    private final String until;
    private volatile Fanout fanout;
    /** Where {@link #awaitAsync} keeps its deadlines, and what completes the futures the application sees. */
    private final Timer timer;

    Pending(String what, String until, Timer timer) {
        this.what = what;
        this.until = until;
        this.timer = timer;
    }

    void attach(Fanout fanout) {
        this.fanout = fanout;
        if (result.isCancelled()) {
            fanout.close();
        }
    }

    @Override
    public void gap(int node) {
        gaps.incrementAndGet();
    }

    public long gaps() {
        return gaps.get();
    }

    @Override
    public void clientClosed(String address) {
        result.completeExceptionally(new CoordisException(address, what + ": the client was closed before " + until,
                null));
    }

    /**
     * {@link #result} as the application sees it, not cancellable: completed on the client's callback executor, or
     * by {@link #close()} on the closing thread, which is the application's.
     */
    CompletionStage<T> delivered() {
        CompletableFuture<T> out = new CompletableFuture<>();
        result.whenComplete((v, f) -> {
            if (result.isCancelled()) {
                out.completeExceptionally(f);
            } else {
                timer.complete(out, v, f);
            }
        });
        return out.minimalCompletionStage();
    }

    /** The result within {@code timeout}, if it came; a zero or negative timeout polls. */
    public Optional<T> await(Duration timeout) throws InterruptedException {
        long nanos = Durations.saturatedNanos(timeout);
        if (nanos <= 0) {
            return poll();
        }
        try {
            return Optional.of(result.get(nanos, TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (CancellationException e) {
            throw closed();
        } catch (ExecutionException e) {
            throw clientClosed(e);
        }
    }

    /**
     * The result within {@code timeout}, without a thread waiting: completed on the client's callback executor by the
     * result, the deadline (empty; a zero or negative timeout polls) or a failure as {@link #await} throws it.
     * Cancelling the future ends this wait only; closing is the owner's.
     */
    public CompletableFuture<Optional<T>> awaitAsync(Duration timeout) {
        long nanos = Durations.saturatedNanos(Objects.requireNonNull(timeout, "timeout must not be null"));
        CompletableFuture<Optional<T>> out = new CompletableFuture<>();
        if (nanos <= 0 || result.isDone()) {
            try {
                out.complete(poll());
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
            }
            return out;
        }
        Timer.Handle deadline = timer.coarse(nanos, () -> timer.complete(out, Optional.empty(), null));
        result.whenComplete((value, failure) -> {
            deadline.cancel();
            if (out.isDone()) {
                return;
            }
            if (failure == null) {
                timer.complete(out, Optional.of(value), null);
            } else {
                timer.complete(out, null, failure instanceof CancellationException ? closed() : failure);
            }
        });
        out.whenComplete((v, f) -> deadline.cancel());
        return out;
    }

    public Optional<T> poll() {
        if (result.isCancelled()) {
            throw closed();
        }
        try {
            return Optional.ofNullable(result.getNow(null));
        } catch (CompletionException e) {
            throw clientClosed(e);
        }
    }

    public void close() {
        result.cancel(false);
        Fanout f = fanout;
        if (f != null) {
            f.close();
        }
    }

    /** The failure of a wait whose client was closed, thrown anew so the caller's stack shows. */
    private static CoordisException clientClosed(Exception e) {
        if (e.getCause() instanceof CoordisException c) {
            return new CoordisException(c.node().orElse(null), c.getMessage(), c);
        }
        throw new IllegalStateException("waiter failed", e.getCause());
    }

    private IllegalStateException closed() {
        return new IllegalStateException(what + " was closed before " + until);
    }
}
