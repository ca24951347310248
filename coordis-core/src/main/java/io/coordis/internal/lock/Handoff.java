package io.coordis.internal.lock;

import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.LockOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The local hand-off of a {@link SingleNodeLock}: a release while other callers of this client wait in line
 * hands the lock straight to the next of them and leaves it with the place in the {@link LocalQueue} as a gift;
 * the next one claims it instead of trying. Bounds keep other clients from starving: {@link #YIELD_AFTER} and
 * {@link #MAX_CHAIN_NANOS}. A hand-off nobody claims, and a call whose answer was lost, are undone by a
 * compare-and-delete in the background. Thread-safe.
 *
 * <p>Most hand-offs make no call. An acquisition at Redis made while others of this client wait in line takes a
 * {@link Block} of {@link #BLOCK} fencing numbers ({@code acquire.lua}'s {@code INCRBY}) instead of one. While its
 * token holds the lock at Redis, nobody else can take a number for the name, so every later holder, of any
 * client, gets a larger one: the next leases of this client get the lock under the same token with the numbers
 * of the block, in arrival order, without touching Redis. Each such lease is valid only until the Redis lease
 * it continues would have to be renewed by (the previous lease's validity deadline), and is handed on that way
 * only while that deadline is at least a third of the validity away and the previous lease was still held when
 * released; otherwise, and when the block runs out, the hand-off is one call ({@code acquire.lua} handing over:
 * new token, a new block, holder details, a fresh TTL). Each local hand-off is noted at Redis in the background,
 * one call in flight at a time ({@code extend.lua} noting): it extends the lock for the lease holding it now,
 * writes its fencing number into the holder details (so {@code inspect} shows it), says whether another client
 * marked that it waits (then the chain yields as the call would) and finds a lock that is not the token's any
 * more (expired, or forced open): the lease holding it then is lost, and the chain ends. A lease handed on after
 * such a loss and before the note or the next renewal saw it holds a number below every number given out by
 * Redis since, so a fenced resource refuses it, exactly as it refuses a paused holder whose lease expired.
 */
final class Handoff {
    private static final Logger log = LoggerFactory.getLogger(Handoff.class);

    /**
     * After this many local hand-offs in a row, a release yields to other clients that marked that they wait
     * ({@code acquire.lua} releases and notifies them instead of handing over).
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
    /**
     * Fencing numbers an acquisition takes when others of the client wait in line: the first for itself, the rest
     * for leases handed on without a call (then one call per this many hand-offs).
     */
    static final int BLOCK = 64;

    private final Node node;
    private final String name;
    private final String key;
    private final LockKeys keys;
    private final LockOptions options;
    private final Timer timer;
    private final Telemetry telemetry;
    /** The lock's own operations at Redis: extend, and a plain compare-and-delete. */
    private final LeaseOps atRedis;

    Handoff(Node node, String name, LockKeys keys, LockOptions options, Timer timer, Telemetry telemetry,
            LeaseOps atRedis) {
        this.node = node;
        this.name = name;
        this.key = keys.lock();
        this.keys = keys;
        this.options = options;
        this.timer = timer;
        this.telemetry = telemetry;
        this.atRedis = atRedis;
    }

    /**
     * The lease the previous holder handed over with {@code permit} as {@code gift} (claimed from it), or
     * {@code null} when there is none; a gift that asks to yield to other clients asks the caller to pause for
     * {@link #yieldNanos()} before trying.
     */
    HeldLease claim(LocalQueue.Permit permit, LocalQueue.Gift gift) {
        if (gift != null && gift.token() != null) {
            if (timer.now() - (gift.requestStart() + options.validityNanos(options.ttl())) >= 0) {
                // its validity ended before it was claimed (the process stood still): let go, and try at Redis
                gift.discard().run();
                return null;
            }
            return lease(permit, gift.token(), gift.fence(), handedOver(), gift.requestStart(), gift.chain(),
                    gift.chainStart(), gift.block());
        }
        return null;
    }

    /** The pause of a local waiter that yields to other clients. */
    static long yieldNanos() {
        return ThreadLocalRandom.current().nextLong(YIELD_MIN_NANOS, YIELD_MAX_NANOS);
    }

    /** The vote of a lease handed over locally. */
    private List<NodeVote> handedOver() {
        return List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, "handed over"));
    }

    /**
     * A lease acquired at Redis with {@code token} (the start of a chain of hand-offs), which took {@code taken}
     * fencing numbers from {@code fence} on.
     */
    HeldLease acquired(LocalQueue.Permit permit, String token, long fence, int taken, List<NodeVote> votes,
                       long start) {
        return lease(permit, token, fence, votes, start, 0, 0, taken > 1 ? new Block(token, fence, taken) : null);
    }

    private HeldLease lease(LocalQueue.Permit permit, String token, long fence, List<NodeVote> votes, long start,
                            int chain, long chainStart, Block block) {
        Held held = new Held(permit, chain, chainStart, block);
        HeldLease lease = new HeldLease(name, key, token, fence, votes, options, start, held, timer, telemetry,
                permit::close);
        held.lease = lease;
        if (block != null) {
            block.current = lease;
            if (block.gone) {
                lease.notOurs(); // a note found the lock gone before this lease became current
            }
        }
        return lease;
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
    void releaseInBackground(String... tokens) {
        for (String token : tokens) {
            node.eval(SingleNodeLock.RELEASE, keys.release(), List.of(token, keys.released())).whenComplete((v, f) -> {
                if (f != null) {
                    log.debug("could not release a lock of '{}' in the background: {}", key, f.toString());
                }
            });
        }
    }

    /**
     * The fencing numbers an acquisition at Redis under {@code token} took and not yet given out, from {@code next}
     * to {@code last}, and what the notes of its hand-offs learnt. {@code next} is touched only by the lease holding
     * the lock (one at a time: the place in the local queue passes it on).
     */
    final class Block {
        private final String token;
        private final long last;
        private long next;
        /** The lease holding the lock under {@code token} now (or last): a note's answer is for it. */
        volatile HeldLease current;
        /** A note found that another client marked that it waits. */
        private volatile boolean marked;
        /** A note found the lock not held by {@code token} any more. */
        private volatile boolean gone;
        /** The lease to note next: its fencing number and when it got the lock (epoch ms); written by holders. */
        private volatile long noteFence;
        private volatile long noteSince;
        private final AtomicBoolean noting = new AtomicBoolean();

        Block(String token, long first, int taken) {
            this.token = token;
            this.next = first + 1;
            this.last = first + taken - 1;
        }

        /** The next number for a lease handed on without a call, or 0 when none may be (see the class comment). */
        long take(HeldLease from, int chain) {
            if (next > last || gone || chain >= YIELD_AFTER && marked || !from.endedWhileHeld()) {
                return 0;
            }
            long validity = options.validityNanos(options.ttl());
            if (from.validUntil() - timer.now() < validity / 3) {
                return 0; // the call renews it
            }
            return next++;
        }

        /** Notes the lease with {@code fence} at Redis in the background; at most one note in flight. */
        void note(long fence) {
            noteSince = System.currentTimeMillis();
            noteFence = fence;
            if (noting.compareAndSet(false, true)) {
                send();
            }
        }

        private void send() {
            long fence = noteFence;
            long start = timer.now();
            node.eval(SingleNodeLock.EXTEND, keys.note(), List.of(token, Durations.millis(options.ttl()),
                    Long.toString(fence), Long.toString(noteSince))).whenComplete((reply, failure) -> {
                        try {
                            if (failure == null) {
                                noted(reply, start);
                            } else {
                                log.debug("could not note a hand-off of '{}': {}", key, failure.toString());
                            }
                        } finally {
                            noting.set(false);
                            if (noteFence != fence && !gone && noting.compareAndSet(false, true)) {
                                send();
                            }
                        }
                    });
        }

        private void noted(Object reply, long start) {
            List<?> answer = Replies.list(reply, 1, SingleNodeLock.EXTEND, node.address());
            if (Replies.isOne(answer)) {
                marked = answer.size() > 1 && Replies.number(answer, 1, SingleNodeLock.EXTEND, node.address()) == 1;
                current.extendedAt(start);
            } else {
                // first gone, then current: a lease made meanwhile either is current here or sees gone (lease())
                gone = true;
                current.notOurs();
            }
        }
    }

    /**
     * The operations of one lease: its release hands the lock straight to the next caller of this client
     * waiting in line when there is one, within the bounds that keep other clients from starving.
     */
    private final class Held implements LeaseOps {
        private final LocalQueue.Permit permit;
        /** Hand-offs in a row that led to this lease (0: acquired at Redis), the first sent at {@code chainStart}. */
        private final int chain;
        private final long chainStart;
        /** The numbers left for hand-offs without a call under this lease's token, or {@code null}. */
        private final Block block;
        /** The lease these are the operations of (set once, right after it is made). */
        private HeldLease lease;

        Held(LocalQueue.Permit permit, int chain, long chainStart, Block block) {
            this.permit = permit;
            this.chain = chain;
            this.chainStart = chainStart;
            this.block = block;
        }

        @Override
        public CompletableFuture<Boolean> extend(String token, Duration ttl) {
            return atRedis.extend(token, ttl);
        }

        @Override
        public boolean releaseAfter(String token, Duration keepFor) {
            return atRedis.releaseAfter(token, keepFor);
        }

        @Override
        public boolean release(String token) {
            if (!permit.othersWaiting()) {
                return atRedis.release(token);
            }
            if (chain > 0 && options.yieldToPollers() && timer.now() - chainStart >= MAX_CHAIN_NANOS) {
                boolean released = atRedis.release(token);
                permit.leave(LocalQueue.Gift.yieldNote());
                return released;
            }
            long fence = block == null ? 0 : block.take(lease, chain);
            if (fence > 0) {
                handOnLocally(token, fence);
                return true;
            }
            if (!LockTerms.replicationOrNone(options).isNone()) {
                // a new block is taken by a grant that waits for the replicas: the next in line acquires at Redis
                return atRedis.release(token);
            }
            String next = options.newToken();
            long start = timer.now();
            CompletableFuture<Object> sent = node.eval(SingleNodeLock.ACQUIRE, keys.acquire(),
                    List.of(next, Durations.millis(options.ttl()), options.holderId(),
                            Long.toString(System.currentTimeMillis()), "", token, chain >= YIELD_AFTER ? "1" : "0",
                            keys.released(), Integer.toString(BLOCK), "0",
                            Durations.millis(options.counterRetention())));
            // Whoever has the answer first, the connection's thread or this one, passes the place on: the next in
            // line is woken straight from the reply, not after this thread has been woken and run. The decision and
            // the hand-on happen under one lock, so this thread never returns (and closes the lease's place
            // without a gift) between the other thread's decision and its hand-on: the place would go on without
            // the lock, whose gift would then be discarded, and the next in line would wait at Redis, marked.
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
                synchronized (decided) {
                    if (decided.get()) {
                        return code(sent.join()) != 0; // the answer came just as the wait ended, and passed the place on
                    }
                    decided.set(true);
                }
                // The script may have run (the lock is held by a hand-off nobody will claim) or not (it is still
                // this lease's): whichever token holds it lets go.
                releaseInBackground(next, token);
                throw e;
            }
            return passOn(reply, next, start, decided) != 0;
        }

        /**
         * Hands the lock on to the next in line under the same token with {@code fence}, valid until this lease
         * would have been, and notes it at Redis in the background.
         */
        private void handOnLocally(String token, long fence) {
            long now = timer.now();
            long start = lease.validUntil() - options.validityNanos(options.ttl());
            LocalQueue.Gift gift = new LocalQueue.Gift(token, fence, start, nextLength(), chain == 0 ? now : chainStart,
                    false, () -> releaseInBackground(token), block);
            if (!permit.handOn(gift)) {
                gift.discard().run();
                return;
            }
            block.note(fence);
        }

        /**
         * The hand-offs in a row that lead to the next lease; the count stops growing at its largest value, since a
         * chain that never yields to pollers can be long.
         */
        private int nextLength() {
            return chain == Integer.MAX_VALUE ? chain : chain + 1;
        }

        private long code(Object reply) {
            return Replies.number(Replies.list(reply, 1, SingleNodeLock.ACQUIRE, node.address()), 0,
                    SingleNodeLock.ACQUIRE, node.address());
        }

        /**
         * Once per hand-off, by the first to see the answer: on {@code 1} the lock goes to the next in line as a
         * gift, on {@code 2} (released for other clients) the next one is asked to yield first; on {@code 0} the
         * lease's close hands on the place without a gift. Answers the answer's code.
         */
        private long passOn(Object reply, String next, long start, AtomicBoolean decided) {
            long code = code(reply);
            LocalQueue.Gift gift;
            if (code == 1) {
                long fence = Replies.number(Replies.list(reply, 2, SingleNodeLock.ACQUIRE, node.address()), 1,
                        SingleNodeLock.ACQUIRE, node.address());
                gift = new LocalQueue.Gift(next, fence, start, nextLength(), chain == 0 ? start : chainStart, false,
                        () -> releaseInBackground(next), new Block(next, fence, BLOCK));
            } else if (code == 2) {
                gift = LocalQueue.Gift.yieldNote();
            } else {
                return code;
            }
            synchronized (decided) {
                if (decided.get()) {
                    return code; // passed on already by whoever saw the answer first
                }
                decided.set(true);
                if (!permit.handOn(gift)) {
                    gift.discard().run();
                }
            }
            return code;
        }
    }
}
