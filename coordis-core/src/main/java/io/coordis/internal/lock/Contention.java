package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.lock.Lease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * The acquire loop every lock kind shares: queue locally behind other callers of this client, try once
 * at Redis, and while busy and time is left, pace the next try the way the lock kind knows best
 * (a pub/sub release notification, the holder's TTL, a backoff). The loop runs without a thread
 * ({@link Acquisition}); the blocking calls wait for it, and an interrupt gives it up. A caller that gives up or
 * is interrupted leaves nothing behind: its local place is handed on and its pacer closed. Each acquire is
 * reported to the client's {@link Telemetry} with how it ended.
 */
final class Contention {

    /** One lock kind's way of trying once and of waiting between tries. */
    interface Contender {
        /**
         * One try at Redis, without blocking: its answer, within the command timeout (a failure then). The lease
         * it grants owns {@code permit} (closing the lease closes it). {@code waits}: the caller tries again after a
         * busy answer; only then may the try leave a sign at Redis that somebody waits (a try that will not wait
         * writes nothing).
         */
        CompletableFuture<Attempt> attempt(LocalQueue.Permit permit, boolean waits);

        /**
         * Starts waiting for another try; called once per acquire, after the first busy answer, on the client's
         * timer thread.
         */
        Pacer pacer();

        /** Lets go of {@code lease}, granted to an acquire that gave up meanwhile, without waiting. */
        void abandon(Lease lease);

        /** The lock as failures name it, e.g. {@code lock 'orders'}. */
        String object();

        /** The lock's name as the caller gave it. */
        String name();
    }

    /** Paces the retries of one acquire call. */
    interface Pacer extends AutoCloseable {
        /**
         * The pause before the next try, at most {@code maxNanos}; {@code last} is the busy answer before it. The
         * future completes with {@code false} to give up (no more retries allowed); cancelling it ends the pause.
         */
        CompletableFuture<Boolean> pause(Attempt last, long maxNanos);

        @Override
        void close();
    }

    /**
     * The answer of one try: the lease, or "busy" with how long the holder's claim lasts in milliseconds
     * ({@code -1}: no expiry, {@code -2}: gone already). A busy answer may carry the {@code failure} that
     * kept the lock from being decided (too few nodes answered); it is thrown if the caller gives up on it.
     */
    record Attempt(Lease lease, long holderMillis, RuntimeException failure) {
        static Attempt granted(Lease lease) {
            return new Attempt(lease, 0, null);
        }

        static Attempt busy(long holderMillis) {
            return new Attempt(null, holderMillis, null);
        }

        static Attempt undecided(long holderMillis, RuntimeException failure) {
            return new Attempt(null, holderMillis, failure);
        }
    }

    private final LocalQueue queue;
    private final Timer timer;
    /** The client's; its leases report to it too. */
    final Telemetry telemetry;

    Contention(LocalQueue queue, Timer timer, Telemetry telemetry) {
        this.queue = queue;
        this.timer = timer;
        this.telemetry = telemetry;
    }

    /** One try, no waiting; waits for the reply through interrupts (restoring the flag). A failure names the lock. */
    Optional<Lease> tryAcquire(String key, Contender contender) {
        CompletableFuture<Lease> result = start(key, 0, false, contender).result;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return Optional.ofNullable(outcome(result));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    Optional<Lease> acquire(String key, Duration wait, Contender contender) throws InterruptedException {
        Durations.notNegative(wait, "wait");
        return Optional.ofNullable(await(start(key, Durations.saturatedNanos(wait), false, contender), contender));
    }

    Lease acquire(String key, Contender contender) throws InterruptedException {
        return await(start(key, Long.MAX_VALUE, true, contender), contender);
    }

    /** {@link #tryAcquire} without waiting for the reply; completed on the client's callback executor. */
    CompletableFuture<Optional<Lease>> tryAcquireAsync(String key, Contender contender) {
        return tryAcquireAsync(key, contender, lease -> lease);
    }

    /** {@link #tryAcquireAsync(String, Contender)} whose lease the caller sees {@code as} a type of its own. */
    <T> CompletableFuture<Optional<T>> tryAcquireAsync(String key, Contender contender, Function<Lease, T> as) {
        return visible(start(key, 0, false, contender), contender, lease -> Optional.ofNullable(lease).map(as));
    }

    /** {@link #acquire(String, Duration, Contender)} without a thread; completed on the client's callback executor. */
    CompletableFuture<Optional<Lease>> acquireAsync(String key, Duration wait, Contender contender) {
        return acquireAsync(key, wait, contender, lease -> lease);
    }

    /** {@link #acquireAsync(String, Duration, Contender)} whose lease the caller sees {@code as} a type of its own. */
    <T> CompletableFuture<Optional<T>> acquireAsync(String key, Duration wait, Contender contender,
                                                    Function<Lease, T> as) {
        Durations.notNegative(wait, "wait");
        return visible(start(key, Durations.saturatedNanos(wait), false, contender), contender,
                lease -> Optional.ofNullable(lease).map(as));
    }

    /** {@link #acquire(String, Contender)} without a thread; completed on the client's callback executor. */
    CompletableFuture<Lease> acquireAsync(String key, Contender contender) {
        return acquireAsync(key, contender, lease -> lease);
    }

    /** {@link #acquireAsync(String, Contender)} whose lease the caller sees {@code as} a type of its own. */
    <T> CompletableFuture<T> acquireAsync(String key, Contender contender, Function<Lease, T> as) {
        return visible(start(key, Long.MAX_VALUE, true, contender), contender, as);
    }

    private Acquisition start(String key, long waitNanos, boolean untilGranted, Contender contender) {
        return Acquisition.start(key, contender, queue, timer, waitNanos, untilGranted, telemetry);
    }

    /**
     * Waits for {@code acquisition}; an interrupt gives it up (a lease granted at that instant is let go) and is
     * thrown.
     */
    private static Lease await(Acquisition acquisition, Contender contender) throws InterruptedException {
        try {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            return outcome(acquisition.result);
        } catch (InterruptedException e) {
            CompletableFuture<Lease> result = acquisition.result;
            if (!result.cancel(false) && !result.isCompletedExceptionally()) {
                Lease granted = result.getNow(null);
                if (granted != null) {
                    contender.abandon(granted);
                }
            }
            throw e;
        }
    }

    private static Lease outcome(CompletableFuture<Lease> result) throws InterruptedException {
        try {
            return result.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new CoordisException(null, "acquiring failed", cause);
        }
    }

    /**
     * The caller's view of {@code acquisition}, its lease as {@code view} makes it, completed on the client's callback
     * executor ({@link Timer#relay}); cancelling it gives the acquisition up (this future itself, not a stage derived
     * from it, is what the caller cancels), and a lease granted in that instant is let go.
     */
    private <T> CompletableFuture<T> visible(Acquisition acquisition, Contender contender, Function<Lease, T> view) {
        return timer.relay(acquisition.result, view, f -> f, contender::abandon);
    }
}
