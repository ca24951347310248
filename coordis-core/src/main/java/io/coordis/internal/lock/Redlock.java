package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Redlock over N independent masters (N ≥ 3): the lock as callers see it. The steps (acquire, extend,
 * release, each decided by a majority within the per-node timeout, and the fencing numbers) are
 * {@link RedlockSteps}; the scripts on each node {@link RedlockScripts}. A refused attempt is retried after a
 * random delay in [retryDelay/2, retryDelay]; a granted one becomes a lease, valid for TTL − elapsed −
 * (TTL × drift factor + 2 ms) from the start of its round.
 *
 * <h2>Delayed restart</h2>
 * With the restart guard on (default), a node's vote counts only after the node has been up longer than
 * the largest TTL of this client's Redlock locks; see {@link RestartGuard}.
 */
final class Redlock extends ContendedLock implements LeaseOps {
    static final LuaScript ACQUIRE = SingleNodeLock.ACQUIRE;
    static final LuaScript RELEASE = SingleNodeLock.RELEASE;
    static final LuaScript EXTEND = SingleNodeLock.EXTEND;
    static final LuaScript INSPECT = SingleNodeLock.INSPECT;
    static final LuaScript RELEASE_AFTER = SingleNodeLock.RELEASE_AFTER;
    static final LuaScript RAISE_FENCE = LuaScript.load(Redlock.class, "fence-raise.lua");
    /** The detail of a vote not awaited because the node failed or answered late before. */
    static final String NOT_WAITED_FOR = Round.NOT_WAITED_FOR;

    private final List<Node> nodes;
    private final List<LockNode> lockNodes;
    private final RedlockSteps steps;

    Redlock(List<? extends Node> nodes, List<RestartGuard> guards, Supplier<Duration> guardWindow, String name,
            String key, LockOptions options, Contention contention, Timer timer) {
        super("lock", name, key, options, contention, timer);
        this.nodes = List.copyOf(nodes);
        this.lockNodes = this.nodes.stream().map(LockNode::of).toList();
        this.steps = new RedlockSteps(lockNodes, guards, guardWindow, key, options, timer);
    }

    /**
     * Retries after a random delay in [retryDelay/2, retryDelay], at most retryCount times. Closing the client
     * ends the pause, and the next try fails naming the closed connections.
     */
    @Override
    public Contention.Pacer pacer() {
        return new Contention.Pacer() {
            private int retries;

            @Override
            public CompletableFuture<Boolean> pause(Contention.Attempt last, long maxNanos) {
                if (retries++ >= options.retryCount()) {
                    return CompletableFuture.completedFuture(false);
                }
                long delay = options.retryDelay().toNanos();
                long pause = ThreadLocalRandom.current().nextLong(delay / 2, delay + 1);
                return timer.delay(Math.max(0, Math.min(maxNanos, pause))).thenApply(v -> true);
            }

            @Override
            public void close() {
            }
        };
    }

    /** One acquire round; none goes out once the client closed (its timer closes first). */
    @Override
    public CompletableFuture<Contention.Attempt> attempt(LocalQueue.Permit permit, boolean waits) {
        if (timer.isClosed()) {
            return CompletableFuture.failedFuture(new CoordisException(null, "the connections to Redis at "
                    + String.join(", ", lockNodes.stream().map(LockNode::address).toList()) + " are closed", null));
        }
        String token = options.newToken();
        return steps.acquire(token, waits).thenApply(a -> {
            lastVotes = a.votes();
            contention.telemetry.redlockVotes(name, a.votes());
            if (!a.granted()) {
                return a.refusal();
            }
            return Contention.Attempt.granted(new HeldLease(name, key, token, a.fence(), a.votes(), options, a.start(),
                    this, timer, contention.telemetry, permit::close));
        });
    }

    @Override
    void releaseInBackground(String token) {
        steps.releaseEverywhere(token);
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        return steps.extend(token, ttl);
    }

    @Override
    public boolean release(String token) {
        return steps.release(token);
    }

    @Override
    public boolean releaseAfter(String token, Duration keepFor) {
        return steps.releaseAfter(token, keepFor);
    }

    /**
     * Forces the lock on every node at once, each answer limited by the command timeout; the result
     * reports on how many nodes it was removed and the largest counter after the bump.
     */
    @Override
    Optional<ForcedUnlock> force(String expected, String reason) {
        Forcing.checkReason(reason);
        List<CompletableFuture<Forcing.Answer>> pending = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            Node node = nodes.get(i);
            pending.add(lockNodes.get(i).within(Forcing.force(node, key, expected, reason, options.counterRetention()), timer, node.commandTimeout())
                    .exceptionally(f -> null));
        }
        List<Forcing.Answer> answers = RedlockSteps.joinBounded(pending);
        if (answers.stream().allMatch(Objects::isNull)) {
            throw new NodeUnavailableException(null, "could not force '" + key + "' open: none of " + nodes.size()
                    + " Redis nodes answered", null);
        }
        List<Forcing.Answer> forced = answers.stream()
                .filter(a -> a != null && a.outcome() == Forcing.Outcome.FORCED).toList();
        if (forced.isEmpty()) {
            return Optional.empty();
        }
        long fence = forced.stream().mapToLong(Forcing.Answer::fence).max().orElseThrow();
        Forcing.Answer first = forced.get(0);
        Optional<String> holderId = forced.stream().map(Forcing.Answer::holderId).flatMap(Optional::stream).findFirst();
        return Optional.of(new ForcedUnlock(key, first.token(), holderId, fence, forced.size(), nodes.size()));
    }

    /**
     * The holder whose value is on a majority of the nodes (a Coordis holder's details come from any of them);
     * empty when no value is: a value on a minority holds nothing (a majority can grant the lock to someone
     * else), as right after a release that returned once a majority had let go while a slow node had not yet.
     * {@code Inspector} shows every node's value.
     */
    @Override
    public Optional<LockHolder> holder() {
        List<CompletableFuture<List<?>>> pending = new ArrayList<>();
        for (LockNode node : lockNodes) {
            pending.add(node.within(node.eval(INSPECT, keys.inspect(), LockLayout.DETAILS_READ), timer, options.nodeTimeout())
                    .<List<?>>thenApply(r -> Replies.list(r, 1, INSPECT, node.address()))
                    .exceptionally(f -> null));
        }
        Map<String, List<List<?>>> byToken = new HashMap<>();
        for (List<?> r : RedlockSteps.joinBounded(pending)) {
            if (r != null && r.get(0) != null && r.size() >= 3) {
                byToken.computeIfAbsent((String) r.get(0), t -> new ArrayList<>()).add(r);
            }
        }
        return byToken.values().stream().filter(on -> on.size() >= steps.quorum()).findFirst().map(this::describe);
    }

    private LockHolder describe(List<List<?>> replies) {
        List<?> first = replies.get(0);
        long pttl = replies.stream().mapToLong(r -> (Long) r.get(1)).min().orElse(-1);
        LockLayout.HolderDetails details = LockLayout.holderDetails((List<?>) first.get(2));
        String on = " on " + replies.size() + " of " + nodes.size() + " nodes";
        return new LockHolder(key, (String) first.get(0), details.holderId().map(id -> id + on), details.fence(),
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), details.since());
    }

    @Override
    public String toString() {
        return "Redlock[" + key + " on " + nodes.size() + " nodes, quorum " + steps.quorum() + ", " + options + "]";
    }
}
