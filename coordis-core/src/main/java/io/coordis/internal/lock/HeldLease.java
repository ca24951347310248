package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeVote;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.Held;
import io.coordis.internal.lease.LeaseSession;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A lease on its {@link LeaseSession}: renewed at a third of its TTL (unless auto-renewal is off), valid until
 * start of the last successful acquire/extend request + TTL − drift (drift = TTL × 1 % + 2 ms), lost when a
 * renewal says "not ours" or that deadline passes without one.
 */
sealed class HeldLease extends Held<Lease> implements Lease permits HeldPermit {
    private static final Logger log = LoggerFactory.getLogger(HeldLease.class);

    private final String token;
    private final long fencingToken;
    private final LockOptions options;
    private final List<NodeVote> votes;
    private final LeaseOps ops;
    private final Timer timer;
    private final Runnable onClose;
    /** Whether the end in progress (release) found the lease still held; read by the lock's release. */
    private volatile boolean endedWhileHeld;

    HeldLease(String name, String key, String token, long fencingToken, List<NodeVote> votes, LockOptions options,
              long requestStart, LeaseOps ops, Timer timer, Telemetry telemetry, Runnable onClose) {
        this("lock", name, key, token, fencingToken, votes, options, requestStart, ops, timer, telemetry, onClose);
    }

    /** A lease on a {@code kind} of claim ({@code lock}, {@code semaphore}) as messages name it. */
    HeldLease(String kind, String name, String key, String token, long fencingToken, List<NodeVote> votes,
              LockOptions options, long requestStart, LeaseOps ops, Timer timer, Telemetry telemetry, Runnable onClose) {
        super(kind, name, key);
        this.token = token;
        this.fencingToken = fencingToken;
        this.votes = List.copyOf(votes);
        this.options = options;
        this.ops = ops;
        this.timer = timer;
        this.onClose = onClose;
        Duration ttl = options.ttl();
        long renewUntil = options.maxHold()
                .map(d -> Durations.saturatedAdd(requestStart, Durations.saturatedNanos(d))).orElse(Long.MAX_VALUE);
        LeaseSession.Terms terms = new LeaseSession.Terms(options.validityNanos(ttl), ttl.toNanos() / 3,
                options.autoRenew(), renewUntil);
        hold(this, timer, object(), requestStart, terms, () -> ops.extend(token, ttl), telemetry, Telemetry.Claim.LOCK);
    }

    @Override
    public List<NodeVote> votes() {
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
    public boolean extend(Duration newTtl) {
        LockTerms.checkTtl(newTtl);
        if (!session().isHeld()) {
            return false;
        }
        long start = timer.now();
        boolean extended;
        try {
            extended = ops.extend(token, newTtl).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof CoordisException ce ? named(ce)
                    : e.getCause() instanceof RuntimeException re ? re : e;
        } catch (CoordisException e) {
            throw named(e);
        }
        if (extended) {
            session().extended(start, options.validityNanos(newTtl), newTtl.toNanos() / 3);
        } else {
            session().notOurs();
        }
        return extended;
    }

    @Override
    public boolean release() {
        return end("releasing", () -> ops.release(token));
    }

    @Override
    public boolean releaseAfter(Duration keepFor) {
        Objects.requireNonNull(keepFor, "keepFor");
        if (keepFor.isZero() || keepFor.isNegative()) {
            return release();
        }
        if (keepFor.compareTo(LockOptions.MAX_TTL) > 0) {
            throw new IllegalArgumentException("time to keep the lock must be at most " + Durations.format(LockOptions.MAX_TTL)
                    + ", was " + Durations.format(keepFor));
        }
        // Redis counts in whole milliseconds
        Duration kept = keepFor.toMillis() == 0 ? Duration.ofMillis(1) : keepFor;
        return end("releasing after a time", () -> ops.releaseAfter(token, kept));
    }

    /**
     * Ends the lease here at once and then, unless it had ended already, at Redis by {@code atRedis}. A failure
     * at Redis is thrown while the lease was held; for a lease already lost the holder was told, and the key, if
     * still ours, expires by its TTL.
     */
    private boolean end(String what, BooleanSupplier atRedis) {
        LeaseSession.State before = session().end();
        if (before == LeaseSession.State.ENDED) {
            return false;
        }
        endedWhileHeld = before == LeaseSession.State.HELD;
        try {
            return atRedis.getAsBoolean();
        } catch (CoordisException e) {
            if (before == LeaseSession.State.HELD) {
                throw named(e);
            }
            log.debug("{} lost {} failed: {}", what, object(), e.getMessage());
            return false;
        } finally {
            onClose.run();
        }
    }

    /**
     * Ends the lease at once without waiting: it was granted to an acquire that gave up meanwhile, and nobody saw
     * it. {@code atRedis} lets go of the token in the background; the local place is handed on.
     */
    void abandon(Consumer<String> atRedis) {
        try {
            if (session().end() != LeaseSession.State.ENDED) {
                atRedis.accept(token);
            }
        } finally {
            onClose.run();
        }
    }

    /** Whether the lease was still held when its release began (its validity not passed, no loss noticed). */
    boolean endedWhileHeld() {
        return endedWhileHeld;
    }

    /** The ticker time the lease's validity ends, or ended (see {@link LeaseSession#validUntil()}). */
    long validUntil() {
        return session().validUntil();
    }

    /** The lock was extended to the options' TTL for this lease by a request sent at {@code start} (ticker time). */
    void extendedAt(long start) {
        session().extended(start, options.validityNanos(options.ttl()), options.ttl().toNanos() / 3);
    }

    /** The lock turned out not to be held by this lease's token any more. */
    void notOurs() {
        session().notOurs();
    }

    @Override
    public void close() {
        release();
    }

    @Override
    protected void onLoss(Telemetry.Loss why) {
        if (why == Telemetry.Loss.DEADLINE && !options.autoRenew()) {
            // nothing failed: the holder chose a fixed TTL and held the lock past it; lost() tells it so
            log.info("{} expired while held: its TTL ran out, and renewal is off", object());
            return;
        }
        log.warn("{} {}; fencing token {} is stale", object(), why == Telemetry.Loss.NOT_OURS
                ? "is no longer held by this lease (expired or taken over)"
                : "could not be renewed before its validity ended", fencingToken);
    }

    @Override
    public String toString() {
        return "Lease[" + key + ", fence " + fencingToken + ", " + session() + "]";
    }
}
