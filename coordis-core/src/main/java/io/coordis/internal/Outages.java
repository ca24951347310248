package io.coordis.internal;

import io.coordis.CoordisException;
import io.coordis.Ticker;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The one rule every wait keeps towards Redis being unavailable: inside the caller's budget a
 * {@linkplain CoordisException#isTransient() transient} failure (a node down, restarting, loading, failing over,
 * a Redlock quorum not reached) is tried again, after a jittered backoff or, when the failure knows how long it
 * lasts (the restart guard's window), after exactly that; once the budget is spent the last failure is reported.
 * A permanent failure (wrong credentials, missing permissions, a wrong type, a full Redis) is reported at once, and
 * so is any failure of a call that may not wait. Lock, semaphore and read-write acquisitions, campaigns, takes,
 * rate limiter waits and the client's first connection keep it.
 */
public final class Outages {
    /** The pause after the first transient failure of a wait. */
    static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** The longest pause between two tries: a node that comes back is found within about this long. */
    static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private Outages() {
    }

    /** Whether a wait rides out {@code failure}: a {@link CoordisException} that may pass by itself. */
    public static boolean ridesOut(Throwable failure) {
        return cause(failure) instanceof CoordisException c && c.isTransient();
    }

    /**
     * The pause before the next try after {@code failures} transient failures in a row (1 for the first), at most
     * {@code maxNanos}: what the failure says is left of it if it knows, else a random pause in [d/2, d] where d
     * doubles from 50 ms up to 1 s.
     */
    public static long pauseNanos(Throwable failure, int failures, long maxNanos) {
        long pause = cause(failure) instanceof CoordisException c && c.retryAfter().isPresent()
                ? Durations.saturatedNanos(c.retryAfter().get())
                : backoffNanos(failures);
        return Math.max(0, Math.min(maxNanos, pause));
    }

    /** The jittered backoff after {@code failures} transient failures in a row. */
    static long backoffNanos(int failures) {
        int doublings = Math.max(0, Math.min(failures - 1, 20));
        long ceiling = Math.min(MAX_PAUSE_NANOS, FIRST_PAUSE_NANOS << doublings);
        return ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    }

    /** One try of a blocking call, given what is left of its wait. */
    @FunctionalInterface
    public interface Attempt<T> {
        T within(Duration left) throws InterruptedException;
    }

    /**
     * {@code attempt} on this thread until it returns, trying again after transient failures until {@code wait}
     * (on {@code ticker}'s clock) is spent; then, or at once for a permanent failure, the last failure is thrown.
     * Each try is given what is left of the wait (zero for the last).
     *
     * @throws InterruptedException when interrupted while trying or pausing
     */
    public static <T> T retrying(Ticker ticker, Duration wait, Attempt<T> attempt) throws InterruptedException {
        long deadline = Durations.saturatedAdd(ticker.read(), Durations.saturatedNanos(wait));
        int failures = 0;
        while (true) {
            try {
                return attempt.within(Duration.ofNanos(Math.max(0, deadline - ticker.read())));
            } catch (RuntimeException e) {
                long left = deadline - ticker.read();
                if (left <= 0 || !ridesOut(e)) {
                    throw e;
                }
                TimeUnit.NANOSECONDS.sleep(pauseNanos(e, ++failures, left));
            }
        }
    }

    /** One try of a call that does not block, given what is left of its wait. */
    @FunctionalInterface
    public interface AsyncAttempt<T> {
        CompletableFuture<T> within(Duration left);
    }

    /**
     * {@link #retrying} without a thread: {@code attempt} is tried again on {@code timer} after each transient
     * failure while {@code wait} lasts, and the result completes with the first value, or with the last failure once
     * the wait is spent, or at once with a permanent one. Cancelling the result stops the tries; one under way runs
     * to its end. The result completes on whichever thread completed the last try.
     */
    public static <T> CompletableFuture<T> retryingAsync(Timer timer, Duration wait, AsyncAttempt<T> attempt) {
        Retries<T> retries = new Retries<>(timer, Durations.saturatedAdd(timer.now(), Durations.saturatedNanos(wait)),
                attempt);
        retries.next();
        return retries.result;
    }

    /** The tries of one {@link #retryingAsync} call; one at a time, each started when the one before failed. */
    private static final class Retries<T> {
        private final Timer timer;
        private final long deadline;
        private final AsyncAttempt<T> attempt;
        private final CompletableFuture<T> result = new CompletableFuture<>();
        /** Transient failures so far; read and written by one try at a time. */
        private volatile int failures;

        Retries(Timer timer, long deadline, AsyncAttempt<T> attempt) {
            this.timer = timer;
            this.deadline = deadline;
            this.attempt = attempt;
        }

        void next() {
            if (result.isDone()) {
                return;
            }
            CompletableFuture<T> tried;
            try {
                tried = attempt.within(Duration.ofNanos(Math.max(0, deadline - timer.now())));
            } catch (RuntimeException e) {
                tried = CompletableFuture.failedFuture(e);
            }
            tried.whenComplete((value, failure) -> {
                if (failure == null) {
                    result.complete(value);
                    return;
                }
                long left = deadline - timer.now();
                if (left <= 0 || !ridesOut(failure) || result.isDone()) {
                    result.completeExceptionally(failure);
                    return;
                }
                failures++;
                timer.delay(pauseNanos(failure, failures, left)).thenRun(this::next);
            });
        }
    }

    private static Throwable cause(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
