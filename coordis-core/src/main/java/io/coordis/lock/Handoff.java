package io.coordis.lock;

import io.coordis.NodeUnavailableException;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Replies;
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
 * hands the lock straight to the next of them at Redis ({@code acquire.lua} handing over: new token, fencing number,
 * holder details, TTL) and leaves it with the place in the {@link LocalQueue} as a gift; the next one claims it
 * instead of trying. Bounds keep other clients from starving: {@link #YIELD_AFTER} and {@link #MAX_CHAIN_NANOS}.
 * A hand-off nobody claims, and a call whose answer was lost, are undone by a compare-and-delete in the
 * background. Thread-safe.
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

    private final RedisNode node;
    private final String name;
    private final String key;
    private final LockKeys keys;
    private final LockOptions options;
    private final Timer timer;
    private final Telemetry telemetry;
    /** The lock's own operations at Redis: extend, and a plain compare-and-delete. */
    private final LeaseOps atRedis;

    Handoff(RedisNode node, String name, LockKeys keys, LockOptions options, Timer timer, Telemetry telemetry,
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
     * The lease the previous holder handed over with {@code permit}, or {@code null} when there is none (after
     * the pause it asked for, if it asked to yield to other clients).
     */
    HeldLease claim(LocalQueue.Permit permit) throws InterruptedException {
        LocalQueue.Gift gift = permit.claimGift();
        if (gift != null && gift.token() != null) {
            return new HeldLease(name, key, gift.token(), gift.fence(), handedOver(), options, gift.requestStart(),
                    new Held(permit, gift.chain(), gift.chainStart()), timer, telemetry, permit::close);
        }
        if (gift != null && gift.yield()) {
            TimeUnit.NANOSECONDS.sleep(ThreadLocalRandom.current().nextLong(YIELD_MIN_NANOS, YIELD_MAX_NANOS));
        }
        return null;
    }

    /** The vote of a lease handed over locally. */
    private List<NodeVote> handedOver() {
        return List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, "handed over"));
    }

    /** A lease acquired at Redis with {@code token} (the start of a chain of hand-offs). */
    HeldLease acquired(LocalQueue.Permit permit, String token, long fence, List<NodeVote> votes, long start) {
        return new HeldLease(name, key, token, fence, votes, options, start, new Held(permit, 0, 0), timer,
                telemetry, permit::close);
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
     * The operations of one lease: its release hands the lock straight to the next caller of this client
     * waiting in line when there is one, within the bounds that keep other clients from starving.
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
            String next = options.newToken();
            long start = timer.now();
            CompletableFuture<Object> sent = node.eval(SingleNodeLock.ACQUIRE, keys.acquire(),
                    List.of(next, Durations.millis(options.ttl()), options.holderId(),
                            Long.toString(System.currentTimeMillis()), "", token, chain >= YIELD_AFTER ? "1" : "0",
                            keys.released()));
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
            if (decided.get()) {
                return code; // passed on already by whoever saw the answer first
            }
            LocalQueue.Gift gift;
            if (code == 1) {
                long fence = Replies.number(Replies.list(reply, 2, SingleNodeLock.ACQUIRE, node.address()), 1,
                        SingleNodeLock.ACQUIRE, node.address());
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
}
