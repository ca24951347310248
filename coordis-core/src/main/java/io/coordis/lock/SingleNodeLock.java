package io.coordis.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Ticker;
import io.coordis.internal.Keys;
import io.coordis.internal.Tokens;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Replies;
import io.coordis.internal.redis.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lock on one Redis node (or one Sentinel-managed master): {@code SET key token NX PX ttl} plus a
 * fencing counter, released by compare-and-delete and extended by compare-and-pexpire, all in scripts
 * ({@code acquire.lua}, {@code release.lua}, {@code extend.lua}).
 */
final class SingleNodeLock implements DistributedLock, LeaseOps, Contention.Contender {
    private static final Logger log = LoggerFactory.getLogger(SingleNodeLock.class);
    static final LuaScript ACQUIRE = LuaScript.load(SingleNodeLock.class, "acquire.lua");
    static final LuaScript RELEASE = LuaScript.load(SingleNodeLock.class, "release.lua");
    static final LuaScript EXTEND = LuaScript.load(SingleNodeLock.class, "extend.lua");
    static final LuaScript INSPECT = LuaScript.load(SingleNodeLock.class, "inspect.lua");
    static final LuaScript HANDOFF = LuaScript.load(SingleNodeLock.class, "handoff.lua");

    /**
     * After this many local hand-offs in a row, a release yields to other clients that marked that they wait
     * ({@code handoff.lua} releases and notifies them instead of handing over).
     */
    static final int YIELD_AFTER = 2;
    /**
     * After local hand-offs in a row for this long the lock goes back to Redis whether or not anybody marked
     * (clients that poll with SET NX leave no mark), and the next local waiter pauses briefly first: a poller
     * finds the lock free in that pause ({@link LockOptions#yieldToPollers()}, on by default). Bounded by time
     * rather than by a count, so the pause costs a fixed small share of the lock's time (a pause of 2-10 ms per
     * 100 ms) however short the holds are; after every 64 hand-offs it cost a quarter of a busy lock's
     * throughput and put 10 ms into the slowest waits.
     */
    static final long MAX_CHAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** Bounds of the pause of a local waiter that yields to other clients. */
    private static final long YIELD_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    private static final long YIELD_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** How long to sleep when the holder's key has no expiry (a foreign lock without TTL). */
    private static final long NO_EXPIRY_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Upper bound of the random delay added to TTL-based wake-ups, so that competing clients spread out. */
    private static final long MAX_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final RedisNode node;
    private final String name;
    private final String key;
    private final String fenceKey;
    private final String holderKey;
    private final String channel;
    /** The acquire script's keys: lock, fence, holder details, waiter marker (named like the channel). */
    private final List<String> acquireKeys;
    /** The release script's keys: lock and waiter marker. */
    private final List<String> releaseKeys;
    private final String ttlArg;
    private final LockOptions options;
    private final Duration opTimeout;
    private final Contention contention;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private volatile List<NodeVote> lastVotes = List.of();

    SingleNodeLock(RedisNode node, String name, LockOptions options, Contention contention, Ticker ticker,
                   ScheduledExecutorService scheduler) {
        this.node = node;
        this.name = name;
        this.key = options.keyPrefix() + name;
        this.fenceKey = Keys.derived(key, "fence");
        this.holderKey = Keys.derived(key, "holder");
        this.channel = Keys.derived(key, "released");
        this.acquireKeys = List.of(key, fenceKey, holderKey, channel);
        this.releaseKeys = List.of(key, channel);
        this.ttlArg = Long.toString(options.ttl().toMillis());
        this.options = options;
        Duration half = options.ttl().dividedBy(2);
        this.opTimeout = half.compareTo(node.commandTimeout()) < 0 ? half : node.commandTimeout();
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

    /**
     * Listens for releases on the lock's channel, so that a release between the busy answer and the
     * next try is not missed: the first pause returns at once (the caller tries again now that it
     * listens); later pauses last until a release is announced or the holder's TTL runs out, plus jitter.
     * Closing the client ends the pause too, and the next try fails naming the closed connection.
     */
    @Override
    public Contention.Pacer pacer() throws InterruptedException {
        Wakeup wakeup = new Wakeup();
        Subscription subscription = node.subscribe(channel, new io.coordis.internal.redis.PubSubListener() {
            @Override
            public void message(String ch, String message) {
                wakeup.ring();
            }

            @Override
            public void closed() {
                wakeup.ring();
            }
        });
        return new Contention.Pacer() {
            private boolean first = true;

            @Override
            public boolean pause(Contention.Attempt last, long maxNanos) throws InterruptedException {
                if (first) {
                    first = false;
                    return true;
                }
                wakeup.await(Math.min(maxNanos, sleepFor(last.holderMillis())));
                return true;
            }

            @Override
            public void close() {
                subscription.close();
            }
        };
    }

    /** Time until the holder's key expires plus jitter; the pub/sub ring usually comes first. */
    private static long sleepFor(long pttlMillis) {
        long jitter = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1), MAX_JITTER_NANOS);
        if (pttlMillis == -2) {
            return 0;
        }
        if (pttlMillis < 0) {
            return NO_EXPIRY_RECHECK_NANOS + jitter;
        }
        return TimeUnit.MILLISECONDS.toNanos(pttlMillis) + jitter;
    }

    @Override
    public Contention.Attempt attempt(LocalQueue.Permit permit) throws InterruptedException {
        LocalQueue.Gift gift = permit.claimGift();
        if (gift != null && gift.token() != null) {
            List<NodeVote> votes = List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, "handed over"));
            lastVotes = votes;
            return Contention.Attempt.granted(new HeldLease(name, key, gift.token(), gift.fence(), votes, options,
                    gift.requestStart(), new Held(permit, gift.chain(), gift.chainStart()), ticker, scheduler,
                    permit::close));
        }
        if (gift != null && gift.yield()) {
            TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(YIELD_MIN_NANOS, YIELD_MAX_NANOS));
        }
        String token = Tokens.next();
        long start = ticker.read();
        CompletableFuture<Object> reply = node.eval(ACQUIRE, acquireKeys,
                List.of(token, ttlArg, options.holderId(), Long.toString(System.currentTimeMillis())));
        List<?> result;
        try {
            result = Replies.list(node.await(reply, opTimeout), 2, ACQUIRE, node.address());
        } catch (io.coordis.CoordisException e) {
            lastVotes = List.of(new NodeVote(node.address(),
                    e instanceof NodeUnavailableException n && n.timedOut() ? NodeVote.Vote.TIMEOUT : NodeVote.Vote.ERROR,
                    e.getMessage()));
            if (e instanceof NodeUnavailableException) {
                releaseInBackground(token);
            }
            throw e;
        } catch (InterruptedException e) {
            releaseInBackground(token);
            throw e;
        }
        if (Replies.isOne(result)) {
            long fence = Replies.number(result, 1, ACQUIRE, node.address());
            List<NodeVote> votes = List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, ""));
            lastVotes = votes;
            HeldLease lease = new HeldLease(name, key, token, fence, votes, options, start, new Held(permit, 0, 0),
                    ticker, scheduler, permit::close);
            return Contention.Attempt.granted(lease);
        }
        long pttl = Replies.number(result, 1, ACQUIRE, node.address());
        lastVotes = List.of(new NodeVote(node.address(), NodeVote.Vote.HELD_BY_OTHER,
                pttl >= 0 ? "ttl " + pttl + "ms" : "no expiry"));
        return Contention.Attempt.busy(pttl);
    }

    /**
     * A compare-and-delete for each of {@code tokens}, sent at once and not waited for: a token that holds
     * nothing changes nothing. For a hand-off nobody will claim, and after a call whose answer was lost (a
     * timeout, a broken connection) or not waited for (an interrupt), for each token the call may have left
     * holding the lock. On a connection kept after the call (an interrupt; a cluster) it runs after the call, so
     * it undoes what the call did. After a timeout or a broken connection it goes out on the new connection: the
     * lost call, sent a command timeout before, has run by then, or never runs because its connection is closed,
     * except on a server that had not read it yet (stalled longer than the command timeout), where it may run
     * later and what it took expires by its TTL.
     */
    private void releaseInBackground(String... tokens) {
        for (String token : tokens) {
            node.eval(RELEASE, releaseKeys, List.of(token, channel)).whenComplete((v, f) -> {
                if (f != null) {
                    log.debug("could not release a lock of '{}' in the background: {}", key, f.toString());
                }
            });
        }
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        return node.eval(EXTEND, List.of(key), List.of(token, Long.toString(ttl.toMillis())))
                .thenApply(reply -> Replies.isOne(Replies.list(reply, 1, EXTEND, node.address())));
    }

    @Override
    public boolean release(String token) {
        Object reply;
        try {
            reply = node.awaitUninterruptibly(node.eval(RELEASE, releaseKeys, List.of(token, channel)),
                    node.commandTimeout());
        } catch (NodeUnavailableException e) {
            releaseInBackground(token); // the release may never have reached Redis: once more, not waited for
            throw e;
        }
        return Replies.isOne(Replies.list(reply, 1, RELEASE, node.address()));
    }

    /**
     * The operations of one lease: its release hands the lock straight to the next caller of this client
     * waiting in line when there is one (one script call: new token, fencing number, holder details, TTL),
     * within the bounds {@link #YIELD_AFTER} and {@link #MAX_CHAIN_NANOS} that keep other clients from starving.
     */
    private final class Held implements LeaseOps {
        private final LocalQueue.Permit permit;
        /** Hand-offs in a row that led to this lease (0: acquired at Redis), the first sent at {@code chainStart}. */
        private final int chain;
        private final long chainStart;

        Held(LocalQueue.Permit permit, int chain, long chainStart) {
            this.permit = permit;
            this.chain = chain;
            this.chainStart = chainStart;
        }

        @Override
        public CompletableFuture<Boolean> extend(String token, Duration ttl) {
            return SingleNodeLock.this.extend(token, ttl);
        }

        @Override
        public boolean release(String token) {
            if (!permit.othersWaiting()) {
                return SingleNodeLock.this.release(token);
            }
            if (chain > 0 && options.yieldToPollers() && ticker.read() - chainStart >= MAX_CHAIN_NANOS) {
                boolean released = SingleNodeLock.this.release(token);
                permit.leave(LocalQueue.Gift.yieldNote());
                return released;
            }
            String next = Tokens.next();
            long start = ticker.read();
            CompletableFuture<Object> sent = node.eval(HANDOFF, acquireKeys, List.of(token, next, ttlArg,
                    options.holderId(), Long.toString(System.currentTimeMillis()), chain >= YIELD_AFTER ? "1" : "0",
                    channel));
            // Whoever has the answer first, the connection's thread or this one, passes the place on: the next in
            // line is woken straight from the reply, not after this thread has been woken and run.
            AtomicBoolean decided = new AtomicBoolean();
            sent.thenAccept(answer -> {
                try {
                    passOn(answer, next, start, decided);
                } catch (RuntimeException e) {
                    // a reply that cannot be read: this thread reads it too and reports it; the place is handed
                    // on by the lease's close, with no gift
                }
            });
            Object reply;
            try {
                reply = node.awaitUninterruptibly(sent, node.commandTimeout());
            } catch (NodeUnavailableException e) {
                if (!decided.compareAndSet(false, true)) {
                    return code(sent.join()) != 0; // the answer came just as the wait ended, and passed the place on
                }
                // The script may have run (the lock is held by a hand-off nobody will claim) or not (it is still
                // this lease's): whichever token holds it lets go.
                releaseInBackground(next, token);
                throw e;
            }
            return passOn(reply, next, start, decided) != 0;
        }

        private long code(Object reply) {
            return Replies.number(Replies.list(reply, 1, HANDOFF, node.address()), 0, HANDOFF, node.address());
        }

        /**
         * Once per hand-off, by the first to see the answer: on {@code 1} the lock goes to the next in line as a
         * gift, on {@code 2} (released for other clients) the next one is asked to yield first; on {@code 0} the
         * lease's close hands on the place without a gift. Answers the answer's code.
         */
        private long passOn(Object reply, String next, long start, AtomicBoolean decided) {
            long code = code(reply);
            if (decided.get()) {
                return code; // passed on already by whoever saw the answer first
            }
            LocalQueue.Gift gift;
            if (code == 1) {
                long fence = Replies.number(Replies.list(reply, 2, HANDOFF, node.address()), 1, HANDOFF, node.address());
                // the count stops growing at its largest value: a chain that never yields to pollers can be long
                int length = chain == Integer.MAX_VALUE ? chain : chain + 1;
                gift = new LocalQueue.Gift(next, fence, start, length, chain == 0 ? start : chainStart, false,
                        () -> releaseInBackground(next));
            } else if (code == 2) {
                gift = LocalQueue.Gift.yieldNote();
            } else {
                return code;
            }
            if (decided.compareAndSet(false, true) && !permit.handOn(gift)) {
                gift.discard().run();
            }
            return code;
        }
    }

    @Override
    public Optional<ForcedUnlock> forceUnlock(String reason) {
        return Forcing.forceOne(node, key, "", reason);
    }

    @Override
    public Optional<ForcedUnlock> forceUnlock(LockHolder holder, String reason) {
        return Forcing.forceOne(node, key, java.util.Objects.requireNonNull(holder, "holder").token(), reason);
    }

    @Override
    public Optional<LockHolder> holder() {
        List<?> r;
        try {
            r = Replies.list(node.await(node.eval(INSPECT, List.of(key, holderKey), List.of()), node.commandTimeout()),
                    1, INSPECT, node.address());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while reading the holder of '" + key + "'", e);
        }
        if (r.isEmpty() || r.get(0) == null) {
            return Optional.empty();
        }
        Replies.list(r, 3, INSPECT, node.address());
        String token = Replies.string(r, 0, INSPECT, node.address());
        long pttl = Replies.number(r, 1, INSPECT, node.address());
        List<?> details = Replies.list(r.get(2), 0, INSPECT, node.address());
        String holderId = null;
        OptionalLong fence = OptionalLong.empty();
        Instant since = null;
        for (int i = 0; i + 1 < details.size(); i += 2) {
            String field = (String) details.get(i);
            String value = (String) details.get(i + 1);
            switch (field) {
                case "holder" -> holderId = value;
                case "fence" -> fence = OptionalLong.of(Long.parseLong(value));
                case "since" -> since = Instant.ofEpochMilli(Long.parseLong(value));
                default -> {
                }
            }
        }
        return Optional.of(new LockHolder(key, token, Optional.ofNullable(holderId), fence,
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty(), Optional.ofNullable(since)));
    }

    @Override
    public String toString() {
        return "SingleNodeLock[" + key + " on " + node.address() + ", " + options + "]";
    }
}
