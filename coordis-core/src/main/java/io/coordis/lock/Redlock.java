package io.coordis.lock;

import io.coordis.NodeUnavailableException;
import io.coordis.Ticker;
import io.coordis.WrongTypeException;
import io.coordis.internal.Keys;
import io.coordis.internal.Tokens;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Replies;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Redlock over N independent masters (N ≥ 3). Each step goes to all nodes at once, each answer limited
 * by the per-node timeout; a lock is held when a majority (N/2 + 1) granted it and validity remains:
 * validity = TTL − elapsed − (TTL × drift factor + 2 ms), measured from the start of the successful
 * attempt. A failed attempt is released on every node at once, then retried after a random delay in
 * [retryDelay/2, retryDelay]. Release runs on every node; extension needs a majority within validity.
 *
 * <p>On each node the layout is the canonical one (plain key = the name, a unique random value, PX), so
 * other Redlock clients on the same nodes exclude Coordis and are excluded by it.
 *
 * <h2>Fencing numbers</h2>
 * Each node counts acquisitions in a counter beside the key. A granted attempt takes the largest count T
 * among the nodes that granted it and raises the counter of every granting node below T to T before the
 * lease is handed out; if fewer than a majority then hold a counter ≥ T, the attempt fails. Any later
 * acquisition needs a majority too, which shares a node with this one, whose counter is ≥ T: its number
 * is > T. So fencing numbers strictly increase as long as nodes keep their counters (persistence); a
 * node that restarts empty restarts its counter, and monotonicity then holds only while a majority of
 * every earlier write-back survives.
 *
 * <h2>Delayed restart</h2>
 * With the restart guard on (default), a node's vote counts only after the node has been up longer than
 * the largest TTL of this client's Redlock locks; see {@link RestartGuard}.
 */
final class Redlock implements DistributedLock, LeaseOps, Contention.Contender {
    static final LuaScript ACQUIRE = SingleNodeLock.ACQUIRE;
    static final LuaScript RELEASE = SingleNodeLock.RELEASE;
    static final LuaScript EXTEND = SingleNodeLock.EXTEND;
    static final LuaScript INSPECT = SingleNodeLock.INSPECT;
    static final LuaScript RAISE_FENCE = LuaScript.load(Redlock.class, "fence-raise.lua");

    private final List<RedisNode> nodes;
    private final List<RestartGuard> guards;
    private final Supplier<Duration> guardWindow;
    private final String name;
    private final String key;
    private final String fenceKey;
    private final String holderKey;
    private final String channel;
    private final LockOptions options;
    private final int quorum;
    /**
     * Per node: {@link #TRUSTED}, {@link #FAILED} (it failed or timed out on its last acquire) or {@link #SLOW}
     * (it answered after its attempt had stopped waiting); attempts wait for a trusted node only, once decided.
     */
    private final java.util.concurrent.atomic.AtomicIntegerArray suspect;
    /** Counts attempts, so that every {@link #SLOW_PROBE_EVERY}th one waits for slow nodes again. */
    private final java.util.concurrent.atomic.AtomicInteger attempts = new java.util.concurrent.atomic.AtomicInteger();
    private final Contention contention;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    /** Per-lock constants of every step, worked out once. */
    private final Duration nodeTimeout;
    private final long nodeTimeoutNanos;
    private final String ttlMillis;
    private final String holderId;
    private final List<String> acquireKeys;
    private final List<String> guardedAcquireKeys;
    private final List<String> releaseKeys;
    private volatile List<NodeVote> lastVotes = List.of();

    Redlock(List<RedisNode> nodes, List<RestartGuard> guards, Supplier<Duration> guardWindow, String name,
            LockOptions options, Contention contention, Ticker ticker, ScheduledExecutorService scheduler) {
        this.nodes = List.copyOf(nodes);
        this.guards = List.copyOf(guards);
        this.guardWindow = guardWindow;
        this.name = name;
        this.key = options.keyPrefix() + name;
        this.fenceKey = Keys.derived(key, "fence");
        this.holderKey = Keys.derived(key, "holder");
        this.channel = Keys.derived(key, "released");
        this.options = options;
        this.quorum = Quorum.of(nodes.size());
        this.suspect = new java.util.concurrent.atomic.AtomicIntegerArray(nodes.size());
        this.contention = contention;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.nodeTimeout = options.nodeTimeout();
        this.nodeTimeoutNanos = Math.max(1, nodeTimeout.toNanos());
        this.ttlMillis = Long.toString(options.ttl().toMillis());
        this.holderId = options.holderId();
        this.acquireKeys = List.of(key, fenceKey, holderKey, channel);
        this.guardedAcquireKeys = List.of(key, fenceKey, holderKey, channel, guards.get(0).marker());
        this.releaseKeys = List.of(key, channel);
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
    public List<NodeVote> lastVotes() {
        return lastVotes;
    }

    @Override
    public String object() {
        return io.coordis.internal.Failures.object("lock", name);
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return contention.tryAcquire(key, this);
    }

    @Override
    public Optional<Lease> acquire(Duration wait) throws InterruptedException {
        return contention.acquire(key, wait, this);
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return contention.acquire(key, this);
    }

    /** Retries after a random delay in [retryDelay/2, retryDelay], at most retryCount times. */
    @Override
    public Contention.Pacer pacer() {
        return new Contention.Pacer() {
            private int retries;

            @Override
            public boolean pause(Contention.Attempt last, long maxNanos) throws InterruptedException {
                if (retries++ >= options.retryCount()) {
                    return false;
                }
                long delay = options.retryDelay().toNanos();
                long pause = ThreadLocalRandom.current().nextLong(delay / 2, delay + 1);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, Math.min(maxNanos, pause)));
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    /** One node's answer to an acquire. */
    private record Answer(NodeVote vote, long fence, long pttl, Throwable failure) {
    }

    @Override
    public Contention.Attempt attempt(LocalQueue.Permit permit) throws InterruptedException {
        String token = Tokens.next();
        long start = ticker.read();
        int n = nodes.size();
        List<CompletableFuture<Answer>> pending = new ArrayList<>(n);
        CompletableFuture<?>[] sent = new CompletableFuture<?>[n];
        String now = Long.toString(System.currentTimeMillis());
        for (int i = 0; i < n; i++) {
            pending.add(acquireOn(i, token, now, sent));
        }
        List<Answer> answers = joinAll(pending, sent, token);
        List<NodeVote> votes = new ArrayList<>(n);
        List<Integer> granted = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Answer a = answers.get(i);
            votes.add(a.vote());
            if (a.vote().vote() == NodeVote.Vote.ACQUIRED) {
                granted.add(i);
            }
        }
        votes = java.util.Collections.unmodifiableList(votes);
        lastVotes = votes;
        if (granted.size() >= quorum) {
            long fence = Long.MIN_VALUE;
            for (int i : granted) {
                fence = Math.max(fence, answers.get(i).fence());
            }
            if (raiseFences(granted, answers, fence, token)) {
                long validUntil = start + options.validityNanos(options.ttl());
                if (validUntil - ticker.read() > 0) {
                    HeldLease lease = new HeldLease(name, key, token, fence, votes, options, start, this, ticker,
                            scheduler, permit::close);
                    return Contention.Attempt.granted(lease);
                }
            }
        }
        releaseEverywhere(token);
        long pttl = answers.stream().filter(a -> a.vote().vote() == NodeVote.Vote.HELD_BY_OTHER)
                .mapToLong(Answer::pttl).min().orElse(-2);
        if (Quorum.busy(votes) || granted.size() >= quorum) {
            return Contention.Attempt.busy(pttl);
        }
        for (Answer a : answers) {
            if (a.failure() instanceof WrongTypeException w) {
                return Contention.Attempt.undecided(pttl, w);
            }
        }
        return Contention.Attempt.undecided(pttl, new QuorumUnavailableException("cannot lock '" + key + "'", quorum, votes));
    }

    /**
     * Asks node {@code i}. A node this client verified (or any node with the guard off) gets the acquire
     * script at once; its command goes into {@code sent}, and the caller's deadline bounds it (no timer per
     * node). A node not verified yet is checked first, each step bounded by its own timer (once per node,
     * and again only after it lost the marker).
     */
    private CompletableFuture<Answer> acquireOn(int i, String token, String now, CompletableFuture<?>[] sent) {
        RedisNode node = nodes.get(i);
        RestartGuard guard = guards.get(i);
        boolean guarded = options.restartGuard();
        String known = guard.verifiedRunId();
        if (!guarded || known != null) {
            CompletableFuture<Object> reply = node.eval(ACQUIRE, guarded ? guardedAcquireKeys : acquireKeys,
                    guarded ? List.of(token, ttlMillis, holderId, now, known) : List.of(token, ttlMillis, holderId, now));
            sent[i] = reply;
            CompletableFuture<Answer> answer = new CompletableFuture<>();
            reply.whenComplete((r, f) -> {
                Answer a;
                try {
                    a = f == null ? acquired(i, r) : failed(node, f);
                } catch (RuntimeException e) {
                    a = failed(node, e);
                }
                answer.complete(a);
            });
            return answer;
        }
        return guard.verify(guardWindow.get(), nodeTimeout).thenCompose(verified -> {
            if (verified == null) {
                return CompletableFuture.completedFuture(new Answer(vote(node, NodeVote.Vote.REFUSED_RECENT_RESTART,
                        "up less than " + io.coordis.internal.Durations.format(guardWindow.get())), 0, 0, null));
            }
            return node.within(node.eval(ACQUIRE, guardedAcquireKeys, List.of(token, ttlMillis, holderId, now, verified)),
                    nodeTimeout).thenApply(reply -> acquired(i, reply));
        }).exceptionally(f -> failed(node, f));
    }

    /** Node {@code i}'s reply to the acquire script, as an answer. */
    private Answer acquired(int i, Object reply) {
        RedisNode node = nodes.get(i);
        List<?> r = Replies.list(reply, 1, ACQUIRE, node.address());
        long code = Replies.number(r, 0, ACQUIRE, node.address());
        if (code == 1) {
            return new Answer(vote(node, NodeVote.Vote.ACQUIRED, ""), Replies.number(r, 1, ACQUIRE, node.address()), 0, null);
        }
        if (code == -1) {
            guards.get(i).markerMissing();
            return new Answer(vote(node, NodeVote.Vote.REFUSED_RECENT_RESTART, "not verified since its restart"), 0, 0, null);
        }
        long pttl = Replies.number(r, 1, ACQUIRE, node.address());
        return new Answer(vote(node, NodeVote.Vote.HELD_BY_OTHER, pttl >= 0 ? "ttl " + pttl + "ms" : "no expiry"), 0, pttl, null);
    }

    private static NodeVote vote(RedisNode node, NodeVote.Vote vote, String detail) {
        return new NodeVote(node.address(), vote, detail);
    }

    private static Answer failed(RedisNode node, Throwable f) {
        Throwable cause = f instanceof java.util.concurrent.CompletionException && f.getCause() != null ? f.getCause() : f;
        boolean timeout = cause instanceof NodeUnavailableException n && n.timedOut();
        return new Answer(vote(node, timeout ? NodeVote.Vote.TIMEOUT : NodeVote.Vote.ERROR,
                String.valueOf(cause.getMessage())), 0, 0, cause);
    }

    /**
     * Waits until the attempt is decided (a majority granted, or so many refused that a majority can no
     * longer grant, or every node answered, each bounded by the node timeout), then gives the nodes that
     * answered in time last time a short grace (as long again as the decision took, at least 1 ms) and nodes
     * that failed or timed out last time none: a partitioned or crashed node costs little while a majority
     * answers at once. A node that answers only after the grace is marked slow and is not waited for either,
     * except on one attempt in {@value #SLOW_PROBE_EVERY}, so a node slowed for a while costs a grace now and
     * then rather than on every attempt; answering in time (or before the decision) makes it trusted again. Nodes not waited for are reported as {@link NodeVote.Vote#NOT_AWAITED}; a late grant
     * there is released with the rest, or expires.
     * The node timeout is this thread's own deadline, not a timer per node: a node still silent at
     * {@code sent + node timeout} is answered {@link NodeVote.Vote#TIMEOUT} by the waiting thread, and one
     * not awaited is timed out on the coarse wheel.
     * Interrupted: the attempt is abandoned, and whatever it may have taken is released on every node.
     */
    private List<Answer> joinAll(List<CompletableFuture<Answer>> pending, CompletableFuture<?>[] sent, String token)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + nodeTimeoutNanos;
        boolean probe = (attempts.incrementAndGet() & (SLOW_PROBE_EVERY - 1)) == 0;
        boolean[] awaitedNodes = new boolean[pending.size()];
        int awaitedCount = 0;
        for (int i = 0; i < pending.size(); i++) {
            int state = suspect.get(i);
            awaitedNodes[i] = state == TRUSTED || (probe && state == SLOW);
            awaitedCount += awaitedNodes[i] ? 1 : 0;
        }
        Tally tally = new Tally(pending.size(), quorum, awaitedCount);
        for (int i = 0; i < pending.size(); i++) {
            int node = i;
            boolean awaited = awaitedNodes[i];
            pending.get(i).thenAccept(a -> {
                if (!answered(a)) {
                    suspect.set(node, FAILED);
                } else if (!tally.finished) {
                    suspect.set(node, TRUSTED);
                } // an answer after the attempt stopped waiting leaves the node as the attempt marked it
                tally.count(a.vote().vote(), awaited);
            });
        }
        try {
            // Healthy nodes answer within a hair of each other, so first wait as long as the shortest grace:
            // most attempts are settled then, and the waiting thread is woken once.
            if (!awaitUntil(tally.settled, Math.min(deadline, start + MIN_GRACE_NANOS))) {
                if (!awaitUntil(tally.decision, deadline)) {
                    expire(pending, sent);
                    tally.decision.get(); // what is left checks a node's restart guard, bounded by its own timers
                }
                // Give the others as long again as the decision took (at least 1 ms, at most the node
                // timeout), so votes are complete unless one is slow.
                long decidedAt = tally.decidedAt;
                long graceEnd = decidedAt + Math.min(nodeTimeoutNanos, Math.max(MIN_GRACE_NANOS, decidedAt - start));
                if (!awaitUntil(tally.settled, graceEnd - deadline < 0 ? graceEnd : deadline) && graceEnd - deadline > 0) {
                    expire(pending, sent);
                    awaitUntil(tally.settled, graceEnd);
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("node answers never fail", e);
        } catch (InterruptedException e) {
            tally.finished = true;
            expireLater(pending, sent, deadline);
            releaseEverywhere(token);
            throw e;
        }
        tally.finished = true;
        List<Answer> answers = new ArrayList<>(pending.size());
        boolean unanswered = false;
        for (int i = 0; i < pending.size(); i++) {
            Answer a = pending.get(i).getNow(null);
            if (a == null) {
                unanswered = true;
                // not in by the end of the grace: later attempts stop waiting for it (a failure marks it
                // FAILED instead when it comes)
                suspect.compareAndSet(i, TRUSTED, SLOW);
            }
            answers.add(a != null ? a : new Answer(vote(nodes.get(i), NodeVote.Vote.NOT_AWAITED,
                    awaitedNodes[i] ? "a majority had decided" : NOT_WAITED_FOR), 0, 0, null));
        }
        if (unanswered) {
            expireLater(pending, sent, deadline);
        }
        return answers;
    }

    private static final long MIN_GRACE_NANOS = 1_000_000L;
    private static final int TRUSTED = 0;
    private static final int FAILED = 1;
    private static final int SLOW = 2;
    /**
     * A slow node is waited for again (with the grace) on one attempt in this many (a power of two), so it
     * is trusted again once it keeps up.
     */
    private static final int SLOW_PROBE_EVERY = 16;
    /** The detail of a vote not awaited because the node failed or answered late before. */
    static final String NOT_WAITED_FOR = "a majority had decided; not waited for (failed or late last time)";

    /**
     * The votes of one acquire as they come in: {@link #decision} completes once a majority granted, or so many
     * said "held by another" that no majority can grant, or every node answered; {@link #settled} once it is
     * decided and every awaited node (one that did not fail last time) answered too.
     */
    private static final class Tally {
        final CompletableFuture<Void> decision = new CompletableFuture<>();
        final CompletableFuture<Void> settled = new CompletableFuture<>();
        /** {@link System#nanoTime()} of the decision; written before {@link #decision} completes. */
        volatile long decidedAt;
        /** Set once the waiting thread stopped waiting: an answer after that does not make a node trusted. */
        volatile boolean finished;
        private final int n;
        private final int quorum;
        private int awaitedLeft; // guarded by this
        private int granted; // guarded by this
        private int held; // guarded by this
        private int answered; // guarded by this

        Tally(int n, int quorum, int awaited) {
            this.n = n;
            this.quorum = quorum;
            this.awaitedLeft = awaited;
        }

        void count(NodeVote.Vote vote, boolean awaited) {
            boolean decidedNow;
            boolean settledNow;
            synchronized (this) {
                boolean before = isDecided();
                granted += vote == NodeVote.Vote.ACQUIRED ? 1 : 0;
                held += vote == NodeVote.Vote.HELD_BY_OTHER ? 1 : 0;
                answered++;
                awaitedLeft -= awaited ? 1 : 0;
                decidedNow = !before && isDecided();
                settledNow = isDecided() && awaitedLeft == 0;
                if (decidedNow) {
                    decidedAt = System.nanoTime();
                }
            }
            if (decidedNow) {
                decision.complete(null);
            }
            if (settledNow) {
                settled.complete(null);
            }
        }

        private boolean isDecided() {
            return granted >= quorum || held > n - quorum || answered == n;
        }
    }

    /**
     * Waits for {@code f} until {@code deadline} ({@link System#nanoTime()}); true when it completed. Only
     * for futures that do not fail.
     */
    private static boolean awaitUntil(CompletableFuture<?> f, long deadline)
            throws InterruptedException, java.util.concurrent.ExecutionException {
        if (f.isDone()) {
            return true;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            return false;
        }
        try {
            f.get(left, TimeUnit.NANOSECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        }
    }

    /**
     * The node timeout has passed for every command in {@code sent}: each one still unanswered is answered
     * {@code TIMEOUT} (as a failed node) and its connection is replaced, as after any timeout.
     */
    private void expire(List<CompletableFuture<Answer>> pending, CompletableFuture<?>[] sent) {
        for (int i = 0; i < sent.length; i++) {
            if (sent[i] != null && !pending.get(i).isDone()) {
                RedisNode node = nodes.get(i);
                if (pending.get(i).complete(failed(node, node.timeoutFailure(nodeTimeout)))) {
                    node.timedOut(sent[i]);
                }
            }
        }
    }

    /** {@link #expire} at {@code deadline}, on the coarse wheel (a tick late at most), for nodes nobody waits for. */
    private void expireLater(List<CompletableFuture<Answer>> pending, CompletableFuture<?>[] sent, long deadline) {
        io.coordis.internal.Wheel.after(deadline - System.nanoTime(), () -> expire(pending, sent));
    }

    /** True when the node itself answered (any vote), false when it failed or timed out. */
    private static boolean answered(Answer a) {
        NodeVote.Vote v = a.vote().vote();
        return v != NodeVote.Vote.TIMEOUT && v != NodeVote.Vote.ERROR;
    }

    /**
     * Completes once {@code quorum} of {@code pending} answered {@code yes}, or more than {@code n - quorum}
     * answered {@code no} (so a majority can no longer say yes; other answers — failures, timeouts — decide
     * nothing early), or all have answered.
     */
    static <T> CompletableFuture<Void> decided(List<CompletableFuture<T>> pending, java.util.function.Predicate<T> yes,
                                               java.util.function.Predicate<T> no, int quorum) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        int n = pending.size();
        int[] counts = new int[3]; // yes, no, other; guarded by counts
        for (CompletableFuture<T> f : pending) {
            f.whenComplete((value, failure) -> {
                int kind = failure != null ? 2 : yes.test(value) ? 0 : no.test(value) ? 1 : 2;
                boolean finished;
                synchronized (counts) {
                    counts[kind]++;
                    finished = counts[0] >= quorum || counts[1] > n - quorum || counts[0] + counts[1] + counts[2] == n;
                }
                if (finished) {
                    done.complete(null);
                }
            });
        }
        if (n == 0) {
            done.complete(null);
        }
        return done;
    }

    /**
     * Raises the fencing counter of every granting node below {@code fence} to it; true when a majority
     * of nodes then holds a counter ≥ {@code fence}.
     */
    private boolean raiseFences(List<Integer> granted, List<Answer> answers, long fence, String token)
            throws InterruptedException {
        List<CompletableFuture<Boolean>> raised = new ArrayList<>();
        int atFence = 0;
        for (int i : granted) {
            if (answers.get(i).fence() >= fence) {
                atFence++;
            } else {
                RedisNode node = nodes.get(i);
                raised.add(node.within(node.eval(RAISE_FENCE, List.of(fenceKey), List.of(Long.toString(fence))),
                                nodeTimeout)
                        .thenApply(r -> true).exceptionally(f -> false));
            }
        }
        if (raised.isEmpty()) {
            return true;
        }
        try {
            CompletableFuture.allOf(raised.toArray(CompletableFuture[]::new)).get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("raise answers never fail", e);
        } catch (InterruptedException e) {
            releaseEverywhere(token);
            throw e;
        }
        return atFence + raised.stream().filter(CompletableFuture::join).count() >= quorum;
    }

    /**
     * Compare-and-delete on every node at once; does not wait. Each answer is {@code true} (deleted),
     * {@code false} (not ours) or {@code null} (failed, or no reply within the node timeout: that command is
     * then timed out on the coarse wheel, a tick late at most).
     */
    private List<CompletableFuture<Boolean>> releaseEverywhere(String token) {
        int n = nodes.size();
        long deadline = System.nanoTime() + nodeTimeoutNanos;
        List<CompletableFuture<Boolean>> released = new ArrayList<>(n);
        CompletableFuture<?>[] sent = new CompletableFuture<?>[n];
        List<String> args = List.of(token, channel);
        for (int i = 0; i < n; i++) {
            RedisNode node = nodes.get(i);
            CompletableFuture<Object> reply = node.eval(RELEASE, releaseKeys, args);
            sent[i] = reply;
            CompletableFuture<Boolean> answer = new CompletableFuture<>();
            reply.whenComplete((r, f) -> {
                Boolean deleted = null;
                if (f == null) {
                    try {
                        deleted = Replies.isOne(Replies.list(r, 1, RELEASE, node.address()));
                    } catch (RuntimeException e) {
                        // an unexpected reply counts as no answer
                    }
                }
                answer.complete(deleted);
            });
            released.add(answer);
        }
        io.coordis.internal.Wheel.after(deadline - System.nanoTime(), () -> expireReleases(released, sent));
        return released;
    }

    /** Release commands still unanswered at their deadline: no answer ({@code null}), connection replaced. */
    private void expireReleases(List<CompletableFuture<Boolean>> released, CompletableFuture<?>[] sent) {
        for (int i = 0; i < sent.length; i++) {
            if (!released.get(i).isDone() && released.get(i).complete(null)) {
                nodes.get(i).timedOut(sent[i]);
            }
        }
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        long start = ticker.read();
        List<CompletableFuture<NodeVote>> pending = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            pending.add(node.within(node.eval(EXTEND, List.of(key), List.of(token, Long.toString(ttl.toMillis()))),
                            nodeTimeout)
                    .thenApply(r -> Replies.isOne(Replies.list(r, 1, EXTEND, node.address()))
                            ? vote(node, NodeVote.Vote.ACQUIRED, "extended") : vote(node, NodeVote.Vote.HELD_BY_OTHER, "not ours"))
                    .exceptionally(f -> failed(node, f).vote()));
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<NodeVote> votes = pending.stream().map(CompletableFuture::join).toList();
            boolean inTime = ticker.read() - start < options.validityNanos(ttl);
            if (Quorum.count(votes, NodeVote.Vote.ACQUIRED) >= quorum && inTime) {
                return true;
            }
            if (Quorum.busy(votes) || !inTime) {
                return false;
            }
            throw new QuorumUnavailableException("cannot extend '" + key + "'", quorum, votes);
        });
    }

    @Override
    public boolean release(String token) {
        long deadline = System.nanoTime() + nodeTimeoutNanos;
        List<CompletableFuture<Boolean>> released = releaseEverywhere(token);
        // a majority deleted is the answer; a slow or partitioned node is not waited for (its key expires)
        CompletableFuture<Void> decision = decided(released, Boolean.TRUE::equals, r -> false, quorum);
        // past the node timeout, the silent nodes count as not answered (the wheel times them out)
        uninterruptibly(() -> {
            awaitUntil(decision, deadline);
            return null;
        });
        int deleted = 0;
        int answered = 0;
        for (CompletableFuture<Boolean> f : released) {
            Boolean r = f.getNow(null);
            if (r != null) {
                answered++;
                deleted += r ? 1 : 0;
            }
        }
        if (answered == 0) {
            throw new NodeUnavailableException(null, "could not release '" + key + "' on any of " + nodes.size()
                    + " Redis nodes; it expires by its TTL", null);
        }
        return deleted >= quorum;
    }

    @Override
    public Optional<ForcedUnlock> forceUnlock(String reason) {
        return forceEverywhere("", reason);
    }

    @Override
    public Optional<ForcedUnlock> forceUnlock(LockHolder holder, String reason) {
        return forceEverywhere(java.util.Objects.requireNonNull(holder, "holder").token(), reason);
    }

    /**
     * Forces the lock on every node at once, each answer limited by the command timeout; the result
     * reports on how many nodes it was removed and the largest counter after the bump.
     */
    private Optional<ForcedUnlock> forceEverywhere(String expected, String reason) {
        Forcing.checkReason(reason);
        List<CompletableFuture<Forcing.Answer>> pending = new ArrayList<>();
        for (RedisNode node : nodes) {
            pending.add(node.within(Forcing.force(node, key, expected, reason), node.commandTimeout())
                    .exceptionally(f -> null));
        }
        List<Forcing.Answer> answers = joinBounded(pending);
        if (answers.stream().allMatch(java.util.Objects::isNull)) {
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

    /** The holder whose value is on the most nodes (a Coordis holder's details come from any of them). */
    @Override
    public Optional<LockHolder> holder() {
        List<CompletableFuture<List<?>>> pending = new ArrayList<>();
        for (RedisNode node : nodes) {
            pending.add(node.within(node.eval(INSPECT, List.of(key, holderKey), List.of()), nodeTimeout)
                    .<List<?>>thenApply(r -> Replies.list(r, 1, INSPECT, node.address()))
                    .exceptionally(f -> null));
        }
        Map<String, List<List<?>>> byToken = new HashMap<>();
        for (List<?> r : joinBounded(pending)) {
            if (r != null && r.get(0) != null && r.size() >= 3) {
                byToken.computeIfAbsent((String) r.get(0), t -> new ArrayList<>()).add(r);
            }
        }
        return byToken.values().stream().max(Comparator.comparingInt(List::size)).map(this::describe);
    }

    private LockHolder describe(List<List<?>> replies) {
        List<?> first = replies.get(0);
        String holderId = null;
        OptionalLong fence = OptionalLong.empty();
        Instant since = null;
        long pttl = replies.stream().mapToLong(r -> (Long) r.get(1)).min().orElse(-1);
        List<?> details = (List<?>) first.get(2);
        for (int i = 0; i + 1 < details.size(); i += 2) {
            String value = (String) details.get(i + 1);
            switch ((String) details.get(i)) {
                case "holder" -> holderId = value + " on " + replies.size() + " of " + nodes.size() + " nodes";
                case "fence" -> fence = OptionalLong.of(Long.parseLong(value));
                case "since" -> since = Instant.ofEpochMilli(Long.parseLong(value));
                default -> {
                }
            }
        }
        return new LockHolder(key, (String) first.get(0), Optional.ofNullable(holderId), fence,
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), Optional.ofNullable(since));
    }

    /**
     * Results of futures that cannot fail and each end within the per-node timeout; waits through
     * interrupts (restoring the flag), as releasing must finish.
     */
    private static <T> List<T> joinBounded(List<CompletableFuture<T>> futures) {
        return uninterruptibly(() -> {
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get();
            return futures.stream().map(CompletableFuture::join).toList();
        });
    }

    /** A wait on futures of node answers, which never fail. */
    private interface NodeWait<T> {
        T get() throws InterruptedException, java.util.concurrent.ExecutionException;
    }

    /** Runs {@code wait} to its end through interrupts, restoring the thread's flag afterwards (releasing must finish). */
    private static <T> T uninterruptibly(NodeWait<T> wait) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    return wait.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("node answers never fail", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Redlock[" + key + " on " + nodes.size() + " nodes, quorum " + quorum + ", " + options + "]";
    }
}
