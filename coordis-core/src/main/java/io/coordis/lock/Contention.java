package io.coordis.lock;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.Ticker;
import io.coordis.internal.Durations;
import io.coordis.internal.Failures;
import io.coordis.internal.MeasuredWait;

import java.time.Duration;
import java.util.Optional;

/**
 * The acquire loop every lock kind shares: queue locally behind other callers of this client, try once
 * at Redis, and while busy and time is left, pace the next try the way the lock kind knows best
 * (a pub/sub release notification, the holder's TTL, a backoff). A caller that gives up or is
 * interrupted leaves nothing behind: its local place is handed on and its pacer closed. Each acquire is
 * reported to the client's {@link Telemetry} with how it ended.
 */
final class Contention {

    /** One lock kind's way of trying once and of waiting between tries. */
    interface Contender {
        /**
         * One try at Redis. The lease it returns owns {@code permit} (closing the lease closes it).
         * Interrupted only while waiting for the reply; the try then leaves nothing held.
         */
        Attempt attempt(LocalQueue.Permit permit) throws InterruptedException;

        /** Starts waiting for another try; called once per acquire, after the first busy answer. */
        Pacer pacer() throws InterruptedException;

        /** The lock as failures name it, e.g. {@code lock 'orders'}. */
        String object();

        /** The lock's name as the caller gave it. */
        String name();
    }

    /** Paces the retries of one acquire call. */
    interface Pacer extends AutoCloseable {
        /**
         * Waits before the next try, at most {@code maxNanos}; {@code last} is the busy answer before it.
         *
         * @return {@code false} to give up (no more retries allowed)
         */
        boolean pause(Attempt last, long maxNanos) throws InterruptedException;

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

        /** The lease, or {@code null} for busy; throws the failure that left it undecided. */
        Lease leaseOrThrow() {
            if (lease == null && failure != null) {
                throw failure;
            }
            return lease;
        }
    }

    private final LocalQueue queue;
    private final Ticker ticker;
    /** The client's; its leases report to it too. */
    final Telemetry telemetry;

    Contention(LocalQueue queue, Ticker ticker, Telemetry telemetry) {
        this.queue = queue;
        this.ticker = ticker;
        this.telemetry = telemetry;
    }

    /** One try, no waiting; a failure names the lock. */
    Optional<Lease> tryAcquire(String key, Contender contender) {
        Telemetry.Wait wait = telemetry.acquiring(contender.name());
        long start = MeasuredWait.start(wait, ticker);
        Optional<Lease> lease;
        try {
            lease = tryOnce(key, contender);
        } catch (CoordisException e) {
            MeasuredWait.ended(wait, ticker, Telemetry.Result.ERROR, start);
            throw Failures.about(contender.object(), e);
        } catch (RuntimeException e) {
            MeasuredWait.ended(wait, ticker, Telemetry.Result.ERROR, start);
            throw e;
        }
        MeasuredWait.ended(wait, ticker, lease.isPresent() ? Telemetry.Result.ACQUIRED : Telemetry.Result.BUSY, start);
        return lease;
    }

    private Optional<Lease> tryOnce(String key, Contender contender) {
        LocalQueue.Permit permit = queue.tryEnter(key);
        if (permit == null) {
            return Optional.empty();
        }
        boolean granted = false;
        try {
            Attempt attempt = attemptUninterruptibly(contender, permit);
            granted = attempt.lease() != null;
            return Optional.ofNullable(attempt.leaseOrThrow());
        } finally {
            if (!granted) {
                permit.close();
            }
        }
    }

    Optional<Lease> acquire(String key, Duration wait, Contender contender) throws InterruptedException {
        Durations.notNegative(wait, "wait");
        return Optional.ofNullable(measured(key, Durations.saturatedNanos(wait), false, contender));
    }

    Lease acquire(String key, Contender contender) throws InterruptedException {
        return measured(key, Long.MAX_VALUE, true, contender);
    }

    /**
     * {@link #acquireWithin}, again and again until granted when {@code untilGranted}; told to the telemetry once.
     * A failure names the lock.
     */
    private Lease measured(String key, long waitNanos, boolean untilGranted, Contender contender)
            throws InterruptedException {
        try {
            return MeasuredWait.repeated(telemetry.acquiring(contender.name()), ticker, waitNanos, untilGranted,
                    nanos -> acquireWithin(key, nanos, contender));
        } catch (CoordisException e) {
            throw Failures.about(contender.object(), e);
        }
    }

    private Lease acquireWithin(String key, long waitNanos, Contender contender) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = Durations.saturatedAdd(ticker.read(), waitNanos);
        LocalQueue.Permit permit = queue.enter(key, waitNanos);
        if (permit == null) {
            return null;
        }
        boolean granted = false;
        try {
            Attempt attempt = contender.attempt(permit);
            if (attempt.lease() != null || deadline - ticker.read() <= 0) {
                granted = attempt.lease() != null;
                return attempt.leaseOrThrow();
            }
            try (Pacer pacer = contender.pacer()) {
                while (true) {
                    if (!pacer.pause(attempt, deadline - ticker.read())) {
                        return attempt.leaseOrThrow();
                    }
                    attempt = contender.attempt(permit);
                    if (attempt.lease() != null) {
                        granted = true;
                        return attempt.lease();
                    }
                    if (deadline - ticker.read() <= 0) {
                        return attempt.leaseOrThrow();
                    }
                }
            }
        } finally {
            if (!granted) {
                permit.close();
            }
        }
    }

    /** One try that waits for its reply through interrupts (restoring the flag), for {@code tryAcquire}. */
    private static Attempt attemptUninterruptibly(Contender contender, LocalQueue.Permit permit) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return contender.attempt(permit);
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
}
