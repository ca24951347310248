package io.coordis.lock;

import io.coordis.Ticker;
import io.coordis.internal.Durations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A lease and its watchdog. Keeps the local validity deadline (start of the last successful
 * acquire/extend request + TTL − drift, drift = TTL × 1 % + 2 ms) and declares the lease lost when a
 * renewal says "not ours" or the deadline passes without a successful renewal.
 */
final class HeldLease implements Lease {
    private static final Logger log = LoggerFactory.getLogger(HeldLease.class);

    private enum State { HELD, RELEASED, LOST }

    private final String name;
    private final String key;
    private final String token;
    private final long fencingToken;
    private final Duration ttl;
    private final LockOptions options;
    private final java.util.List<NodeVote> votes;
    private final long renewUntil;
    private final LeaseOps ops;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final Runnable onClose;
    private final boolean autoRenew;
    private final CompletableFuture<Lease> lost = new CompletableFuture<>();

    private State state = State.HELD;
    private boolean renewalFailing;
    private long validUntil;
    /** The next renewal, on the coarse wheel (it may run a tick late: it is due at a third of the TTL). */
    private io.coordis.internal.Wheel.Handle renewal;
    private ScheduledFuture<?> expiry;

    HeldLease(String name, String key, String token, long fencingToken, java.util.List<NodeVote> votes,
              LockOptions options, long requestStart, LeaseOps ops, Ticker ticker, ScheduledExecutorService scheduler,
              Runnable onClose) {
        this.name = name;
        this.key = key;
        this.token = token;
        this.fencingToken = fencingToken;
        this.votes = java.util.List.copyOf(votes);
        this.options = options;
        this.ttl = options.ttl();
        this.renewUntil = options.maxHold()
                .map(d -> Durations.saturatedAdd(requestStart, Durations.saturatedNanos(d))).orElse(Long.MAX_VALUE);
        boolean autoRenew = options.autoRenew();
        this.ops = ops;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.onClose = onClose;
        this.autoRenew = autoRenew;
        synchronized (this) {
            this.validUntil = requestStart + options.validityNanos(ttl);
            // One timer per lease while it is young: the first renewal (at a third of the TTL, well inside
            // the validity) starts the expiry check, so short leases never schedule it.
            if (autoRenew) {
                scheduleRenewal(ttl.toNanos() / 3);
            } else {
                scheduleExpiry();
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public java.util.List<NodeVote> votes() {
        return votes;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public String token() {
        return token;
    }

    @Override
    public synchronized boolean isHeld() {
        return state == State.HELD && ticker.read() - validUntil < 0;
    }

    @Override
    public synchronized Duration remainingValidity() {
        long left = validUntil - ticker.read();
        return state == State.HELD && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public CompletionStage<Lease> lost() {
        return lost.minimalCompletionStage();
    }

    @Override
    public boolean extend(Duration newTtl) {
        LockOptions.checkTtl(newTtl);
        synchronized (this) {
            if (state != State.HELD) {
                return false;
            }
        }
        long start = ticker.read();
        boolean extended;
        try {
            extended = ops.extend(token, newTtl).join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof io.coordis.CoordisException ce ? named(ce)
                    : e.getCause() instanceof RuntimeException re ? re : e;
        } catch (io.coordis.CoordisException e) {
            throw named(e);
        }
        onExtended(extended, start, newTtl);
        return extended;
    }

    @Override
    public boolean release() {
        boolean wasLost;
        synchronized (this) {
            if (state == State.RELEASED) {
                return false;
            }
            wasLost = state == State.LOST;
            state = State.RELEASED;
            cancelTimers();
        }
        try {
            return ops.release(token);
        } catch (io.coordis.CoordisException e) {
            if (!wasLost) {
                throw named(e);
            }
            // The holder was told already; the key, if still ours, expires by its TTL.
            log.debug("releasing lost lock '{}' failed: {}", name, e.getMessage());
            return false;
        } finally {
            onClose.run();
        }
    }

    @Override
    public void close() {
        release();
    }

    private io.coordis.CoordisException named(io.coordis.CoordisException e) {
        return io.coordis.internal.Failures.about(io.coordis.internal.Failures.object("lock", name), e);
    }

    private void renew() {
        synchronized (this) {
            if (state != State.HELD) {
                return;
            }
            if (expiry == null) {
                scheduleExpiry();
            }
            if (ticker.read() - renewUntil >= 0) {
                log.warn("lock '{}' reached its maximum hold time; no longer renewed, it ends with its validity", name);
                return;
            }
        }
        long start = ticker.read();
        CompletableFuture<Boolean> f;
        try {
            f = ops.extend(token, ttl);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((extended, failure) -> {
            if (failure != null) {
                synchronized (this) {
                    if (!renewalFailing) {
                        log.warn("renewing lock '{}' failed, retrying until its validity ends: {}", name, failure.getMessage());
                    } else {
                        log.debug("renewing lock '{}' failed again: {}", name, failure.getMessage());
                    }
                    renewalFailing = true;
                    if (state == State.HELD) {
                        scheduleRenewal(Math.min(ttl.toNanos() / 10, TimeUnit.SECONDS.toNanos(1)));
                    }
                }
            } else {
                onExtended(extended, start, ttl);
            }
        });
    }

    private void onExtended(boolean extended, long start, Duration newTtl) {
        synchronized (this) {
            if (state != State.HELD) {
                return;
            }
            if (!extended) {
                loseLocked("lock '" + name + "' is no longer held by this lease (expired or taken over)");
                return;
            }
            validUntil = start + options.validityNanos(newTtl);
            if (renewalFailing) {
                renewalFailing = false;
                log.info("renewing lock '{}' works again", name);
            }
            scheduleExpiry();
            if (autoRenew) {
                if (renewal != null) {
                    renewal.cancel();
                }
                scheduleRenewal(newTtl.toNanos() / 3);
            }
        }
    }

    private void checkExpiry() {
        synchronized (this) {
            if (state != State.HELD) {
                return;
            }
            if (ticker.read() - validUntil >= 0) {
                loseLocked("lock '" + name + "' could not be renewed before its validity ended");
            } else {
                scheduleExpiry();
            }
        }
    }

    private void loseLocked(String why) {
        state = State.LOST;
        cancelTimers();
        log.warn("{}; fencing token {} is stale", why, fencingToken);
        try {
            scheduler.execute(() -> lost.complete(this));
        } catch (RejectedExecutionException e) {
            lost.complete(this); // client closed: tell the holder on this thread instead
        }
    }

    /**
     * Renewals wait on the coarse {@link io.coordis.internal.Wheel} (no thread woken per lease; most leases
     * are released before their first renewal) and then run on the client's timer thread.
     */
    private void scheduleRenewal(long delayNanos) {
        if (scheduler.isShutdown()) {
            log.debug("client closed; lease of '{}' is no longer renewed and expires by its TTL", name);
            renewal = null;
            return;
        }
        renewal = io.coordis.internal.Wheel.after(delayNanos, () -> {
            try {
                scheduler.execute(this::renew);
            } catch (RejectedExecutionException e) {
                log.debug("client closed; lease of '{}' is no longer renewed and expires by its TTL", name);
            }
        });
    }

    /** Schedules on the client's timer; once the client is closed nothing more is scheduled. */
    private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("client closed; lease of '{}' is no longer renewed and expires by its TTL", name);
            return null;
        }
    }

    private void scheduleExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
        }
        expiry = schedule(this::checkExpiry, validUntil - ticker.read());
    }

    private void cancelTimers() {
        if (renewal != null) {
            renewal.cancel();
        }
        if (expiry != null) {
            expiry.cancel(false);
        }
    }

    @Override
    public synchronized String toString() {
        return "Lease[" + key + ", fence " + fencingToken + ", " + state.name().toLowerCase(java.util.Locale.ROOT)
                + (state == State.HELD ? ", valid " + Durations.format(remainingValidity()) : "") + "]";
    }
}
