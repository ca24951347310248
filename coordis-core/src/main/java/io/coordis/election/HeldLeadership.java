package io.coordis.election;

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
 * A leadership and its renewal, the same watchdog pattern as a lock's lease: renew every TTL/3; keep the
 * local deadline (start of the last successful renewal + TTL − drift) and end the leadership when a
 * renewal says "not yours" or the deadline passes without one. Every read of the state checks the
 * deadline against the monotonic clock, so a process resumed after a pause sees the end on its first
 * check, before the timer thread had a chance to run; once over, never valid again (a renewal that
 * answers after the deadline does not revive it).
 */
final class HeldLeadership implements Leadership {
    private static final Logger log = LoggerFactory.getLogger(HeldLeadership.class);

    private final LeaseElection election;
    private final long term;
    private final long validityNanos;
    private final long renewNanos;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final CompletableFuture<Leadership> revoked = new CompletableFuture<>();

    private boolean leading = true;
    private boolean renewalFailing;
    private long validUntil;
    private ScheduledFuture<?> renewal;
    private ScheduledFuture<?> expiry;

    HeldLeadership(LeaseElection election, long term, long start, ElectionOptions options, Ticker ticker,
                   ScheduledExecutorService scheduler) {
        this.election = election;
        this.term = term;
        this.validityNanos = options.validityNanos();
        this.renewNanos = options.renewInterval().toNanos();
        this.ticker = ticker;
        this.scheduler = scheduler;
        synchronized (this) {
            validUntil = start + validityNanos;
            scheduleExpiry();
            renewal = schedule(this::renew, renewNanos);
        }
    }

    @Override
    public String name() {
        return election.name();
    }

    @Override
    public String candidateId() {
        return election.candidateId();
    }

    @Override
    public long term() {
        return term;
    }

    @Override
    public synchronized boolean isValid() {
        if (leading && ticker.read() - validUntil >= 0) {
            endLocked("its term's deadline passed without a successful renewal", true);
        }
        return leading;
    }

    @Override
    public synchronized Duration remainingValidity() {
        long left = validUntil - ticker.read();
        return isValid() && left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    @Override
    public CompletionStage<Leadership> revoked() {
        return revoked.minimalCompletionStage();
    }

    @Override
    public boolean resign() {
        synchronized (this) {
            if (!isValid()) {
                return false;
            }
            endLocked("resigned", false);
        }
        return election.resignAtRedis(term);
    }

    private void renew() {
        if (!isValid()) {
            return;
        }
        long start = ticker.read();
        CompletableFuture<Boolean> f;
        try {
            f = election.renew(term);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((renewed, failure) -> onRenewal(start, renewed, failure));
    }

    private synchronized void onRenewal(long start, Boolean renewed, Throwable failure) {
        if (!isValid()) {
            return;
        }
        if (failure != null) {
            if (!renewalFailing) {
                log.warn("renewing leadership of '{}' (term {}) failed, retrying until its deadline in {}: {}",
                        election.name(), term, Durations.format(Duration.ofNanos(Math.max(0, validUntil - ticker.read()))),
                        failure.getMessage());
            }
            renewalFailing = true;
            renewal = schedule(this::renew, Math.min(renewNanos / 3, TimeUnit.SECONDS.toNanos(1)));
            return;
        }
        if (!renewed) {
            endLocked("Redis no longer holds this term (it expired or another candidate took over)", false);
            return;
        }
        validUntil = start + validityNanos;
        if (renewalFailing) {
            renewalFailing = false;
            log.info("renewing leadership of '{}' (term {}) works again", election.name(), term);
        }
        scheduleExpiry();
        renewal = schedule(this::renew, renewNanos);
    }

    private void checkExpiry() {
        synchronized (this) {
            if (isValid()) {
                scheduleExpiry();
            }
        }
    }

    /**
     * Ends the leadership locally and tells the election. With {@code cleanUp}, also deletes the key at
     * Redis in the background if it still holds this term (a late renewal may have kept it alive),
     * so that another candidate need not wait for the TTL.
     */
    private void endLocked(String reason, boolean cleanUp) {
        leading = false;
        if (renewal != null) {
            renewal.cancel(false);
        }
        if (expiry != null) {
            expiry.cancel(false);
        }
        if (cleanUp) {
            election.resignInBackground(term);
        }
        election.ended(this, reason);
        try {
            scheduler.execute(() -> revoked.complete(this));
        } catch (RejectedExecutionException e) {
            revoked.complete(this);
        }
    }

    private void scheduleExpiry() {
        if (expiry != null) {
            expiry.cancel(false);
        }
        expiry = schedule(this::checkExpiry, validUntil - ticker.read());
    }

    private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        try {
            return scheduler.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("client closed; leadership of '{}' is no longer renewed and expires by its TTL", election.name());
            return null;
        }
    }

    @Override
    public synchronized String toString() {
        return "Leadership[" + election.name() + ", term " + term + ", " + (leading ? "valid " + Durations.format(
                Duration.ofNanos(Math.max(0, validUntil - ticker.read()))) : "ended") + "]";
    }
}
