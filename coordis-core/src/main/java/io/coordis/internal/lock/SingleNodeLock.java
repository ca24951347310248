package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.Replication;
import io.coordis.internal.Durations;
import io.coordis.internal.Replicas;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.Held;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.ReplicatedWrite;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A lock on one Redis node (or one Sentinel-managed master): {@code SET key token NX PX ttl} plus a
 * fencing counter, released by compare-and-delete and extended by compare-and-pexpire, all in scripts
 * ({@code acquire.lua}, {@code release.lua}, {@code extend.lua}); callers of this client that wait in line get
 * it by a local {@link Handoff}.
 */
final class SingleNodeLock extends ContendedLock implements LeaseOps {
    static final LuaScript ACQUIRE = LuaScript.load(SingleNodeLock.class, "acquire.lua");
    static final LuaScript RELEASE = LuaScript.load(SingleNodeLock.class, "release.lua");
    static final LuaScript EXTEND = LuaScript.load(SingleNodeLock.class, "extend.lua");
    static final LuaScript INSPECT = Held.READ;
    static final LuaScript RELEASE_AFTER = LuaScript.load(SingleNodeLock.class, "release-after.lua");

    private final Node node;
    private final Handoff handoff;
    private final Replication replication;
    /** The TTL and the fence's retention as every try sends them, in milliseconds. */
    private final String ttlMillis;
    private final String retentionMillis;

    SingleNodeLock(Node node, String name, String key, LockOptions options, Contention contention, Timer timer) {
        super("lock", name, key, options, contention, timer);
        this.node = node;
        this.replication = LockTerms.replicationOrNone(options);
        this.ttlMillis = Durations.millis(options.ttl());
        this.retentionMillis = Durations.millis(options.counterRetention());
        this.handoff = new Handoff(node, name, keys, options, timer, contention.telemetry, this);
    }

    /** Waits for a release announced on the lock's channel, or the holder's TTL (see {@link #releasePacer}). */
    @Override
    public Contention.Pacer pacer() {
        return releasePacer(node);
    }

    @Override
    public CompletableFuture<Contention.Attempt> attempt(LocalQueue.Permit permit, boolean waits) {
        LocalQueue.Gift gift = permit.claimGift();
        HeldLease handed = handoff.claim(permit, gift);
        if (handed != null) {
            lastVotes = handed.votes();
            return CompletableFuture.completedFuture(Contention.Attempt.granted(handed));
        }
        if (gift != null && gift.yield()) {
            // asked to give other clients a moment first
            return timer.delay(Handoff.yieldNanos()).thenCompose(v -> atRedis(permit, waits));
        }
        return atRedis(permit, waits);
    }

    private CompletableFuture<Contention.Attempt> atRedis(LocalQueue.Permit permit, boolean waits) {
        String token = options.newToken();
        long start = timer.now();
        // numbers for hand-offs without a call when others of this client wait in line already
        int taken = permit.othersWaiting() ? Handoff.BLOCK : 1;
        List<String> sent = List.of(token, ttlMillis, options.holderId(), Long.toString(System.currentTimeMillis()), "",
                "", "", "", taken == 1 ? "1" : Integer.toString(taken), waits ? "1" : "0", retentionMillis);
        // a grant that must reach replicas is written where its WAIT will run, on a connection of its own
        ReplicatedWrite<String> on = replication.isNone() ? null : node.replicatedWrite();
        CompletableFuture<Object> reply = on == null ? node.eval(ACQUIRE, keys.acquire(), sent)
                : on.eval(ACQUIRE, keys.acquire(), sent);
        CompletableFuture<Contention.Attempt> attempt = tryReply(node, reply).handle((answer, f) -> {
            if (f != null) {
                CoordisException e = failedTry(node, f);
                if (e instanceof NodeUnavailableException) {
                    handoff.releaseInBackground(token);
                }
                throw e;
            }
            return answer;
        }).thenCompose(answer -> replicated(answer, token, on)).thenApply(answer -> answered(permit, answer, token,
                taken, start));
        if (on != null) {
            attempt.whenComplete((a, f) -> on.close());
        }
        return attempt;
    }

    /**
     * {@code answer}, an acquire's reply written on {@code on}, once a grant in it reached the replicas the options ask
     * for; a grant that did not is given back (compare-and-delete, waited for) and the try fails with the
     * {@link io.coordis.NotReplicatedException}, or with the failure of the {@code WAIT} itself.
     */
    private CompletableFuture<Object> replicated(Object answer, String token, ReplicatedWrite<String> on) {
        if (on == null || !Replies.isOne(Replies.list(answer, 2, ACQUIRE, node.address()))) {
            return CompletableFuture.completedFuture(answer);
        }
        return Replicas.confirm(on.replicate(key, replication.replicas(), replication.timeout()), replication,
                        object(), key, node.addressFor(key), "the grant was given back and nothing is held")
                .handle((v, f) -> f == null ? CompletableFuture.completedFuture(answer)
                        : node.eval(RELEASE, keys.release(), List.of(token, keys.released())).handle((x, g) -> {
                            if (g != null) {
                                handoff.releaseInBackground(token);
                            }
                            throw failure(node, f);
                        }))
                .thenCompose(x -> x);
    }

    private Contention.Attempt answered(LocalQueue.Permit permit, Object answer, String token, int taken, long start) {
        List<?> result = Replies.list(answer, 2, ACQUIRE, node.address());
        if (Replies.isOne(result)) {
            long fence = Replies.number(result, 1, ACQUIRE, node.address());
            List<NodeVote> votes = List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, ""));
            lastVotes = votes;
            return Contention.Attempt.granted(handoff.acquired(permit, token, fence, taken, votes, start));
        }
        long pttl = Replies.number(result, 1, ACQUIRE, node.address());
        lastVotes = List.of(new NodeVote(node.address(), NodeVote.Vote.HELD_BY_OTHER,
                pttl >= 0 ? "ttl " + pttl + "ms" : "no expiry"));
        return Contention.Attempt.busy(pttl);
    }

    @Override
    void releaseInBackground(String token) {
        handoff.releaseInBackground(token);
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        return node.eval(EXTEND, keys.extend(), List.of(token, Durations.millis(ttl)))
                .thenApply(reply -> Replies.isOne(Replies.list(reply, 1, EXTEND, node.address())));
    }

    @Override
    public boolean release(String token) {
        Object reply;
        try {
            reply = node.awaitUninterruptibly(node.eval(RELEASE, keys.release(), List.of(token, keys.released())),
                    node.commandTimeout());
        } catch (NodeUnavailableException e) {
            handoff.releaseInBackground(token); // the release may never have reached Redis: once more, not waited for
            throw e;
        }
        return Replies.isOne(Replies.list(reply, 1, RELEASE, node.address()));
    }

    @Override
    public boolean releaseAfter(String token, Duration keepFor) {
        Object reply = node.awaitUninterruptibly(node.eval(RELEASE_AFTER, keys.release(),
                List.of(token, Long.toString(keepFor.toMillis()), keys.released())), node.commandTimeout());
        return Replies.isOne(Replies.list(reply, 1, RELEASE_AFTER, node.address()));
    }

    @Override
    Optional<ForcedUnlock> force(String expected, String reason) {
        return Forcing.forceOne(node, key, expected, reason, options.counterRetention());
    }

    @Override
    public Optional<LockHolder> holder() {
        List<?> r = readHolder(node, INSPECT, keys.inspect(), LockLayout.DETAILS_READ);
        if (r.get(0) == null) {
            return Optional.empty();
        }
        Replies.list(r, 3, INSPECT, node.address());
        String token = Replies.string(r, 0, INSPECT, node.address());
        long pttl = Replies.number(r, 1, INSPECT, node.address());
        LockLayout.HolderDetails details = LockLayout.holderDetails(Replies.list(r.get(2), 0, INSPECT, node.address()));
        return Optional.of(new LockHolder(key, token, details.holderId(), details.fence(),
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), details.since()));
    }

    @Override
    public String toString() {
        return "SingleNodeLock[" + key + " on " + node.address() + ", " + options + "]";
    }
}
