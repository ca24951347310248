package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The read side of a read-write lock on one Redis node: each hold is a member of the sorted set
 * {@code {name}:readers} while the lock key holds {@link LockLayout#READERS}, taken by {@code read-acquire.lua},
 * renewed by {@code read-extend.lua}, released by {@code read-release.lua}. Readers of one client do not line up
 * locally: each acquire takes a place of its own in the {@link LocalQueue}, so they hold at once.
 */
final class ReaderSetLock extends ContendedLock implements LeaseOps {
    private static final Logger log = LoggerFactory.getLogger(ReaderSetLock.class);
    static final LuaScript ACQUIRE = LuaScript.load(ReaderSetLock.class, "read-acquire.lua");
    static final LuaScript EXTEND = LuaScript.load(ReaderSetLock.class, "read-extend.lua");
    static final LuaScript RELEASE = LuaScript.load(ReaderSetLock.class, "read-release.lua");
    static final LuaScript READERS = LuaScript.load(ReaderSetLock.class, "readers.lua");
    /** Numbers the local places of read acquires apart (see the class comment). */
    private static final AtomicLong PLACES = new AtomicLong();

    private final Node node;
    private final String readers;
    private final String details;

    ReaderSetLock(Node node, String name, String key, LockOptions options, Contention contention, Timer timer) {
        super("read lock", name, key, options, contention, timer);
        this.node = node;
        this.readers = LockLayout.readersKey(key);
        this.details = LockLayout.readerDetailsKey(key);
    }

    @Override
    String place() {
        return key + "\u0000reader " + PLACES.incrementAndGet();
    }

    @Override
    public Contention.Pacer pacer() {
        return releasePacer(node);
    }

    @Override
    public CompletableFuture<Contention.Attempt> attempt(LocalQueue.Permit permit, boolean waits) {
        String token = options.newToken();
        return tryReply(node, send(permit, token, waits)).handle((attempt, f) -> {
            if (f != null) {
                CoordisException e = failedTry(node, f);
                if (e instanceof NodeUnavailableException) {
                    releaseInBackground(token); // the try may still run at Redis
                }
                throw e;
            }
            return attempt;
        });
    }

    /** One try at Redis: the hold, or busy with how long until the next try makes sense. */
    private CompletableFuture<Contention.Attempt> send(LocalQueue.Permit permit, String token, boolean waits) {
        long start = timer.now();
        List<String> keys = List.of(key, this.keys.fence(), this.keys.holder(), readers, details, this.keys.released());
        List<String> args = List.of(token, Durations.millis(options.ttl()), options.holderId(),
                Long.toString(System.currentTimeMillis()), waits ? "1" : "0", Durations.millis(options.counterRetention()));
        return node.eval(ACQUIRE, keys, args).thenApply(reply -> {
            List<?> result = Replies.list(reply, 2, ACQUIRE, node.address());
            long n = Replies.number(result, 1, ACQUIRE, node.address());
            if (Replies.isOne(result)) {
                List<NodeVote> votes = List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, ""));
                lastVotes = votes;
                return Contention.Attempt.granted(new HeldLease(name, key, token, n, votes, options, start, this, timer,
                        contention.telemetry, permit::close));
            }
            lastVotes = List.of(new NodeVote(node.address(), NodeVote.Vote.HELD_BY_OTHER,
                    n >= 0 ? "ttl " + n + "ms" : "no expiry"));
            return Contention.Attempt.busy(n);
        });
    }

    @Override
    void releaseInBackground(String token) {
        node.eval(RELEASE, releaseKeys(), List.of(token, keys.released())).whenComplete((v, f) -> {
            if (f != null) {
                log.debug("could not release a read hold of '{}' in the background: {}", key, f.toString());
            }
        });
    }

    private List<String> releaseKeys() {
        return List.of(key, readers, details, keys.released());
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        return node.eval(EXTEND, List.of(key, readers, details), List.of(token, Durations.millis(ttl)))
                .thenApply(reply -> Replies.isOne(Replies.list(reply, 1, EXTEND, node.address())));
    }

    @Override
    public boolean release(String token) {
        Object reply;
        try {
            reply = node.awaitUninterruptibly(node.eval(RELEASE, releaseKeys(), List.of(token, keys.released())),
                    node.commandTimeout());
        } catch (NodeUnavailableException e) {
            releaseInBackground(token); // the release may never have reached Redis: once more, not waited for
            throw e;
        }
        return Replies.isOne(Replies.list(reply, 1, RELEASE, node.address()));
    }

    /** Leaves the hold to expire {@code keepFor} from now: an extension to that time, which may shorten it. */
    @Override
    public boolean releaseAfter(String token, Duration keepFor) {
        return node.awaitUninterruptibly(extend(token, keepFor), node.commandTimeout());
    }

    @Override
    Optional<ForcedUnlock> force(String expected, String reason) {
        return Forcing.forceOne(node, key, expected, reason, options.counterRetention());
    }

    /** The read hold lasting longest, if any. */
    @Override
    public Optional<LockHolder> holder() {
        List<LockHolder> all = readers();
        return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
    }

    /** The read holds now, longest last. */
    List<LockHolder> readers() {
        List<?> r = readHolder(node, READERS, List.of(key, readers, details, keys.holder()), List.of());
        Replies.list(r, 4, READERS, node.address());
        return LockLayout.readHolds(key, Replies.list(r.get(0), 0, READERS, node.address()),
                Replies.list(r.get(1), 0, READERS, node.address()), Replies.number(r, 3, READERS, node.address()));
    }

    @Override
    public String toString() {
        return "ReaderSetLock[" + key + " on " + node.address() + ", " + options + "]";
    }
}
