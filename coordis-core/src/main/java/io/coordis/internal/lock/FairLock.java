package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.Tokens;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A lock on one Redis node that goes to waiters in arrival order across clients ({@code fair-acquire.lua}): the
 * lock key is a plain lock's, released and renewed as {@link SingleNodeLock} does, and beside it a line of places
 * as a {@link QueuedSemaphore}'s, held for {@link QueuedSemaphore#PLACE} and renewed by every try. Tries go
 * through the client's {@link Contention} like every lock's, paced by the release channel, the holder's TTL and
 * the renewal of the place (every third of it); there is no local hand-off, so every grant passes the line.
 *
 * <p>Callers of one client line up for the key in its {@link LocalQueue}, so at most one of them tries at Redis at
 * a time: this lock keeps that caller's place, taken with its pacer after its first busy answer (as a
 * {@link PermitRequest} joins the line once it listens for releases) and given up with it. A caller that gives up
 * takes its place out of the line; one that dies leaves it to lapse. Thread-safe.
 */
final class FairLock extends ContendedLock implements LeaseOps {
    static final LuaScript ACQUIRE = LuaScript.load(FairLock.class, "fair-acquire.lua");
    static final LuaScript LEAVE = LuaScript.load(FairLock.class, "fair-leave.lua");
    private static final long RENEW_PLACE_NANOS = QueuedSemaphore.PLACE.toNanos() / 3;

    private final Node node;
    private final SingleNodeLock plain;
    private final List<String> acquireKeys;
    private final List<String> lineKeys;
    private final String ttlMillis;
    private final String placeMillis = Long.toString(QueuedSemaphore.PLACE.toMillis());
    private final String retentionMillis;
    /** The place in line of this lock's caller now waiting at Redis; {@code null} when none has one. */
    private final AtomicReference<String> place = new AtomicReference<>();

    FairLock(Node node, String name, String key, LockOptions options, Contention contention, Timer timer) {
        super("lock", name, key, options, contention, timer);
        this.node = node;
        this.plain = new SingleNodeLock(node, name, key, options, contention, timer);
        this.acquireKeys = List.of(keys.lock(), keys.fence(), keys.holder(), keys.released(),
                LockLayout.lineKey(key), LockLayout.lineLapsesKey(key));
        this.lineKeys = List.of(LockLayout.lineKey(key), LockLayout.lineLapsesKey(key), keys.lock());
        this.ttlMillis = Durations.millis(options.ttl());
        this.retentionMillis = Durations.millis(options.counterRetention());
    }

    /**
     * Takes a place in line for the acquisition that found the lock busy (its next try joins the line), then waits
     * for a release announced on the lock's channel or the holder's TTL, but at most a third of the place's time,
     * so that the next try renews the place. Closing it (granted, or given up) takes the place out of the line.
     */
    @Override
    public Contention.Pacer pacer() {
        Contention.Pacer release = releasePacer(node);
        String mine = Tokens.next();
        place.set(mine);
        return new Contention.Pacer() {
            @Override
            public CompletableFuture<Boolean> pause(Contention.Attempt last, long maxNanos) {
                return release.pause(last, Math.min(maxNanos, RENEW_PLACE_NANOS));
            }

            @Override
            public void close() {
                release.close();
                if (place.compareAndSet(mine, null)) { // not granted: still in line
                    leave(mine);
                }
            }
        };
    }

    @Override
    public CompletableFuture<Contention.Attempt> attempt(LocalQueue.Permit permit, boolean waits) {
        String token = options.newToken();
        String p = waits ? place.get() : null;
        String mine = p != null ? p : "";
        long start = timer.now();
        List<String> sent = List.of(token, ttlMillis, options.holderId(), Long.toString(System.currentTimeMillis()),
                mine, placeMillis, retentionMillis);
        return tryReply(node, node.eval(ACQUIRE, acquireKeys, sent)).handle((reply, f) -> {
            if (f != null) {
                CoordisException e = failedTry(node, f);
                if (e instanceof NodeUnavailableException) {
                    plain.releaseInBackground(token);
                }
                throw e;
            }
            return answered(permit, reply, token, mine, start);
        });
    }

    private Contention.Attempt answered(LocalQueue.Permit permit, Object reply, String token, String mine,
                                        long start) {
        List<?> result = Replies.list(reply, 2, ACQUIRE, node.address());
        if (Replies.isOne(result)) {
            if (!mine.isEmpty()) {
                place.compareAndSet(mine, null); // the grant took the place out of the line
            }
            long fence = Replies.number(result, 1, ACQUIRE, node.address());
            List<NodeVote> votes = List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, ""));
            lastVotes = votes;
            return Contention.Attempt.granted(new HeldLease(name, key, token, fence, votes, options, start, this,
                    timer, contention.telemetry, permit::close));
        }
        long pttl = Replies.number(result, 1, ACQUIRE, node.address());
        lastVotes = List.of(new NodeVote(node.address(), NodeVote.Vote.HELD_BY_OTHER,
                pttl >= 0 ? "ttl " + pttl + "ms" : "no expiry"));
        return Contention.Attempt.busy(pttl);
    }

    /** Takes {@code left} out of the line, not waited for; a failure leaves it to lapse. */
    private void leave(String left) {
        node.eval(LEAVE, lineKeys, List.of(left, keys.released())).whenComplete((r, f) -> { });
    }

    @Override
    void releaseInBackground(String token) {
        plain.releaseInBackground(token);
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        return plain.extend(token, ttl);
    }

    @Override
    public boolean release(String token) {
        return plain.release(token);
    }

    @Override
    public boolean releaseAfter(String token, Duration keepFor) {
        return plain.releaseAfter(token, keepFor);
    }

    @Override
    Optional<ForcedUnlock> force(String expected, String reason) {
        return plain.force(expected, reason);
    }

    @Override
    public Optional<LockHolder> holder() {
        return plain.holder();
    }

    @Override
    public String toString() {
        return "FairLock[" + key + " on " + node.address() + ", " + options + "]";
    }
}
