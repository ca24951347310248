package io.coordis.internal.contest;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * The caller's view of a {@link Contest}'s result: completed from it by the contest once the contest let go of
 * what it held, or at once when the caller cancels. Cancelling it gives the contest up. Thread-safe.
 */
final class CallerFuture<T> extends CompletableFuture<T> {
    private final CompletableFuture<T> result;

    CallerFuture(CompletableFuture<T> result) {
        this.result = result;
    }

    /** Gives the contest up; when it was decided already, the caller reads that now and lets go of a win itself. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!result.cancel(false)) {
            settle();
        }
        return isCancelled();
    }

    /** Completes this view as the result completed (which it has). */
    void settle() {
        result.whenComplete((v, f) -> {
            if (f instanceof CancellationException) {
                super.cancel(false);
            } else if (f != null) {
                completeExceptionally(f);
            } else {
                complete(v);
            }
        });
    }
}
