package io.coordis.internal.lock;

import io.coordis.NodeVote;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.LockOptions;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One Redlock lock's scripts on each node, and their replies read as votes: acquire (through the restart
 * guard when it is on), raise the fencing counter, extend, release. On each node the layout is the
 * canonical one (plain key = the name, a unique random value, PX), so other Redlock clients on the same
 * nodes exclude Coordis and are excluded by it. Every call sends at once and never blocks; an answer never
 * fails (a failure is an ERROR or TIMEOUT vote). Thread-safe.
 */
final class RedlockScripts {
    private final List<LockNode> nodes;
    private final List<RestartGuard> guards;
    private final Supplier<Duration> guardWindow;
    private final boolean guarded;
    private final Timer timer;
    private final Duration nodeTimeout;
    private final String fenceKey;
    /** The keys of {@code fence-raise.lua}: counter, lock, holder details. */
    private final List<String> raiseKeys;
    /** How long a raised fencing counter is kept, milliseconds. */
    private final String retentionMillis;
    private final String channel;
    private final String ttlMillis;
    private final String holderId;
    private final List<String> acquireKeys;
    private final List<String> guardedAcquireKeys;
    private final List<String> releaseKeys;
    private final List<String> extendKeys;

    RedlockScripts(List<LockNode> nodes, List<RestartGuard> guards, Supplier<Duration> guardWindow, String key,
                   LockOptions options, Timer timer) {
        this.nodes = nodes;
        this.guards = guards;
        this.guardWindow = guardWindow;
        this.guarded = options.restartGuard();
        this.timer = timer;
        this.nodeTimeout = options.nodeTimeout();
        LockKeys keys = LockKeys.of(key);
        this.fenceKey = keys.fence();
        this.channel = keys.released();
        this.ttlMillis = Durations.millis(options.ttl());
        this.retentionMillis = Durations.millis(options.counterRetention());
        this.holderId = options.holderId();
        this.acquireKeys = keys.acquire();
        this.raiseKeys = List.of(fenceKey, key, keys.holder());
        this.guardedAcquireKeys = List.of(key, fenceKey, keys.holder(), channel, guards.get(0).marker());
        this.releaseKeys = keys.release();
        this.extendKeys = keys.extend();
    }

    /**
     * Asks node {@code i} for the lock; {@code now} is the wall clock in ms (the holder's "since"), {@code waits}
     * whether the caller tries again when refused (only then does a busy node mark that somebody waits). A node
     * this client verified (or any node with the guard off) gets the acquire script at once, and the round's
     * deadline bounds it. A node not verified yet is checked first, each step bounded by its own deadline
     * (once per node, and again only after it lost the marker).
     */
    Round.Asked acquire(int i, String token, String now, boolean waits) {
        LockNode node = nodes.get(i);
        RestartGuard guard = guards.get(i);
        String known = guard.verifiedRunId();
        if (!guarded || known != null) {
            CompletableFuture<Object> reply = node.eval(Redlock.ACQUIRE, guarded ? guardedAcquireKeys : acquireKeys,
                    args(token, now, guarded ? known : "", waits));
            return new Round.Asked(answer(node, reply, r -> acquired(i, r)), reply);
        }
        CompletableFuture<Round.Answer> checked = guard.verify(guardWindow.get(), nodeTimeout).thenCompose(verified -> {
            if (verified == null) {
                // the answer carries how long until the node may vote, where a busy one carries the holder's TTL
                Duration left = guard.untilTrusted();
                return CompletableFuture.completedFuture(new Round.Answer(new NodeVote(node.address(),
                        NodeVote.Vote.REFUSED_RECENT_RESTART, "up less than " + Durations.format(guardWindow.get())
                        + "; may vote in " + Durations.format(left)), 0, left.toMillis(), null));
            }
            return node.within(node.eval(Redlock.ACQUIRE, guardedAcquireKeys, args(token, now, verified, waits)), timer,
                    nodeTimeout).thenApply(r -> acquired(i, r));
        }).exceptionally(f -> Round.Answer.failure(node, f));
        return new Round.Asked(checked, null);
    }

    /**
     * The acquire script's arguments: {@code runId} the restart guard's ('' with the guard off), the unused hand-off
     * arguments, the flag that lets a busy node mark a caller that waits, and the fencing counter's retention.
     */
    private List<String> args(String token, String now, String runId, boolean waits) {
        return List.of(token, ttlMillis, holderId, now, runId, "", "", "", "1", waits ? "1" : "0", retentionMillis);
    }

    /** Node {@code i}'s reply to the acquire script, as an answer. */
    private Round.Answer acquired(int i, Object reply) {
        LockNode node = nodes.get(i);
        List<?> r = Replies.list(reply, 1, Redlock.ACQUIRE, node.address());
        long code = Replies.number(r, 0, Redlock.ACQUIRE, node.address());
        if (code == 1) {
            long fence = Replies.number(r, 1, Redlock.ACQUIRE, node.address());
            return new Round.Answer(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, ""), fence, 0, null);
        }
        if (code == -1) {
            guards.get(i).markerMissing();
            return Round.Answer.of(node, NodeVote.Vote.REFUSED_RECENT_RESTART, "not verified since its restart");
        }
        long pttl = Replies.number(r, 1, Redlock.ACQUIRE, node.address());
        return new Round.Answer(new NodeVote(node.address(), NodeVote.Vote.HELD_BY_OTHER,
                pttl >= 0 ? "ttl " + pttl + "ms" : "no expiry"), 0, pttl, null);
    }

    /**
     * Raises node {@code i}'s fencing counter to {@code fence} if it is lower, and records {@code fence} in the holder
     * details there while {@code token} holds the lock; {@code false} if it failed.
     */
    CompletableFuture<Boolean> raiseFence(int i, long fence, String token) {
        LockNode node = nodes.get(i);
        return node.within(node.eval(Redlock.RAISE_FENCE, raiseKeys, List.of(Long.toString(fence), retentionMillis,
                token)), timer, nodeTimeout).thenApply(r -> true).exceptionally(f -> false);
    }

    /** Compare-and-delete on node {@code i}: ACQUIRED when it deleted the key, HELD_BY_OTHER when not ours. */
    Round.Asked release(int i, String token) {
        CompletableFuture<Object> reply = nodes.get(i).eval(Redlock.RELEASE, releaseKeys, List.of(token, channel));
        return new Round.Asked(answer(nodes.get(i), reply, r -> yesOrNo(i, Redlock.RELEASE, r, "released")), reply);
    }

    /** Leaves the key on node {@code i} to expire in {@code keepFor} if {@code token} holds it there. */
    Round.Asked releaseAfter(int i, String token, Duration keepFor) {
        CompletableFuture<Object> reply = nodes.get(i).eval(Redlock.RELEASE_AFTER, releaseKeys,
                List.of(token, Long.toString(keepFor.toMillis()), channel));
        return new Round.Asked(answer(nodes.get(i), reply, r -> yesOrNo(i, Redlock.RELEASE_AFTER, r, "expiring")), reply);
    }

    /** Sets node {@code i}'s TTL to {@code ttl} if {@code token} holds it there. */
    Round.Asked extend(int i, String token, Duration ttl) {
        CompletableFuture<Object> reply = nodes.get(i).eval(Redlock.EXTEND, extendKeys,
                List.of(token, Durations.millis(ttl)));
        return new Round.Asked(answer(nodes.get(i), reply, r -> yesOrNo(i, Redlock.EXTEND, r, "extended")), reply);
    }

    private Round.Answer yesOrNo(int i, LuaScript script, Object reply, String yes) {
        LockNode node = nodes.get(i);
        return Replies.isOne(Replies.list(reply, 1, script, node.address()))
                ? Round.Answer.of(node, NodeVote.Vote.ACQUIRED, yes) : Round.Answer.of(node, NodeVote.Vote.HELD_BY_OTHER, "not ours");
    }

    /** {@code reply} read by {@code read}; a failure, or a reply that does not read, is the node's failure. */
    private static CompletableFuture<Round.Answer> answer(LockNode node, CompletableFuture<Object> reply,
                                                          Function<Object, Round.Answer> read) {
        CompletableFuture<Round.Answer> answer = new CompletableFuture<>();
        reply.whenComplete((r, f) -> {
            Round.Answer a;
            try {
                a = f == null ? read.apply(r) : Round.Answer.failure(node, f);
            } catch (RuntimeException e) {
                a = Round.Answer.failure(node, e);
            }
            answer.complete(a);
        });
        return answer;
    }
}
