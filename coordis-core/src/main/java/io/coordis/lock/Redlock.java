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
    /** Per node: it failed or timed out on its last acquire, so attempts do not wait for it once decided. */
    private final java.util.concurrent.atomic.AtomicIntegerArray suspect;
    private final Contention contention;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
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
        List<CompletableFuture<Answer>> pending = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            pending.add(acquireOn(i, token));
        }
        List<Answer> answers = joinAll(pending, token);
        List<NodeVote> votes = answers.stream().map(Answer::vote).toList();
        lastVotes = votes;
        List<Integer> granted = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            if (answers.get(i).vote().vote() == NodeVote.Vote.ACQUIRED) {
                granted.add(i);
            }
        }
        if (granted.size() >= quorum) {
            long fence = granted.stream().mapToLong(i -> answers.get(i).fence()).max().orElseThrow();
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

    private CompletableFuture<Answer> acquireOn(int i, String token) {
        RedisNode node = nodes.get(i);
        RestartGuard guard = guards.get(i);
        Duration timeout = options.nodeTimeout();
        boolean guarded = options.restartGuard();
        String known = guard.verifiedRunId();
        CompletableFuture<String> runId = !guarded || known != null ? CompletableFuture.completedFuture(known)
                : guard.verify(guardWindow.get(), timeout);
        return runId.thenCompose(verified -> {
            if (guarded && verified == null) {
                return CompletableFuture.completedFuture(new Answer(vote(node, NodeVote.Vote.REFUSED_RECENT_RESTART,
                        "up less than " + io.coordis.internal.Durations.format(guardWindow.get())), 0, 0, null));
            }
            List<String> keys = guarded ? List.of(key, fenceKey, holderKey, channel, RestartGuard.MARKER)
                    : List.of(key, fenceKey, holderKey, channel);
            List<String> args = guarded
                    ? List.of(token, Long.toString(options.ttl().toMillis()), options.holderId(),
                            Long.toString(System.currentTimeMillis()), verified)
                    : List.of(token, Long.toString(options.ttl().toMillis()), options.holderId(),
                            Long.toString(System.currentTimeMillis()));
            return node.within(node.eval(ACQUIRE, keys, args), timeout).thenApply(reply -> {
                List<?> r = Replies.list(reply, 1, ACQUIRE, node.address());
                long code = Replies.number(r, 0, ACQUIRE, node.address());
                if (code == 1) {
                    return new Answer(vote(node, NodeVote.Vote.ACQUIRED, ""), Replies.number(r, 1, ACQUIRE, node.address()), 0, null);
                }
                if (code == -1) {
                    guard.markerMissing();
                    return new Answer(vote(node, NodeVote.Vote.REFUSED_RECENT_RESTART, "not verified since its restart"), 0, 0, null);
                }
                long pttl = Replies.number(r, 1, ACQUIRE, node.address());
                return new Answer(vote(node, NodeVote.Vote.HELD_BY_OTHER, pttl >= 0 ? "ttl " + pttl + "ms" : "no expiry"), 0, pttl, null);
            });
        }).exceptionally(f -> failed(node, f));
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
     * answered last time a short grace (as long again as the decision took, at least 1 ms) and nodes that
     * failed or timed out last time none: a slow, partitioned or crashed node costs little while a majority
     * answers at once. Nodes not waited for are reported as {@link NodeVote.Vote#NOT_AWAITED}; a late grant
     * there is released with the rest, or expires.
     * Interrupted: the attempt is abandoned, and whatever it may have taken is released on every node.
     */
    private List<Answer> joinAll(List<CompletableFuture<Answer>> pending, String token) throws InterruptedException {
        List<CompletableFuture<Answer>> awaited = new ArrayList<>();
        for (int i = 0; i < pending.size(); i++) {
            int node = i;
            pending.get(i).thenAccept(a -> suspect.set(node, answered(a) ? 0 : 1));
            if (suspect.get(i) == 0) {
                awaited.add(pending.get(i));
            }
        }
        try {
            long start = System.nanoTime();
            decided(pending, a -> a.vote().vote() == NodeVote.Vote.ACQUIRED,
                    a -> a.vote().vote() == NodeVote.Vote.HELD_BY_OTHER, quorum).get();
            // Healthy nodes answer within a hair of each other: give the others as long again as the
            // decision took (at least 1 ms, at most the node timeout), so votes are complete unless one is slow.
            long grace = Math.min(options.nodeTimeout().toNanos(), Math.max(1_000_000L, System.nanoTime() - start));
            try {
                CompletableFuture.allOf(awaited.toArray(CompletableFuture[]::new)).get(grace, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException slow) {
                // decided without the slow ones
            }
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("node answers never fail", e);
        } catch (InterruptedException e) {
            releaseEverywhere(token);
            throw e;
        }
        List<Answer> answers = new ArrayList<>(pending.size());
        for (int i = 0; i < pending.size(); i++) {
            Answer a = pending.get(i).getNow(null);
            answers.add(a != null ? a : new Answer(vote(nodes.get(i), NodeVote.Vote.NOT_AWAITED,
                    "a majority had decided"), 0, 0, null));
        }
        return answers;
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
                                options.nodeTimeout())
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

    /** Compare-and-delete on every node at once; does not wait. */
    private List<CompletableFuture<Boolean>> releaseEverywhere(String token) {
        List<CompletableFuture<Boolean>> released = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            released.add(node.within(node.eval(RELEASE, List.of(key, channel), List.of(token, channel)),
                            options.nodeTimeout())
                    .thenApply(r -> Replies.isOne(Replies.list(r, 1, RELEASE, node.address()))));
        }
        return released;
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        long start = ticker.read();
        List<CompletableFuture<NodeVote>> pending = new ArrayList<>(nodes.size());
        for (RedisNode node : nodes) {
            pending.add(node.within(node.eval(EXTEND, List.of(key), List.of(token, Long.toString(ttl.toMillis()))),
                            options.nodeTimeout())
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
        List<CompletableFuture<Boolean>> released = releaseEverywhere(token).stream()
                .map(f -> f.exceptionally(e -> null)).toList();
        // a majority deleted is the answer; a slow or partitioned node is not waited for (its key expires)
        joinBounded(List.of(decided(released, Boolean.TRUE::equals, r -> false, quorum)));
        int deleted = 0;
        int answered = 0;
        for (Boolean r : released.stream().map(f -> f.getNow(null)).toList()) {
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
            pending.add(node.within(node.eval(INSPECT, List.of(key, holderKey), List.of()), options.nodeTimeout())
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
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get();
                    return futures.stream().map(CompletableFuture::join).toList();
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

    static List<LuaScript> scripts() {
        return List.of(RAISE_FENCE);
    }

    @Override
    public String toString() {
        return "Redlock[" + key + " on " + nodes.size() + " nodes, quorum " + quorum + ", " + options + "]";
    }
}
