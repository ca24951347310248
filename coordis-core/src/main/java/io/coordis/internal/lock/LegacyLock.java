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

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A lock in the format of the classic {@code SETNX} pattern, for sharing a lock with programs that still
 * use it: the value at the key is the time at which the lock expires, {@code SETNX lock.foo <now + ttl + 1>}.
 * A busy lock whose value lies in the past is taken over; a holder deletes the key only while its own
 * expiry has not passed.
 *
 * <h2>Wire format</h2>
 * Coordis writes the expiry as a decimal count of <em>Unix milliseconds</em> ({@code now + ttl + 1}). It
 * reads both units: a number below 10<sup>11</sup> is Unix seconds (integer, as the {@code SETNX} page
 * writes it, or with a fraction) and counts as expiring at the end of that second; anything larger is
 * milliseconds. Milliseconds are written because that choice fails safe: a program that expects
 * milliseconds and finds seconds would read a date in 1970 and take a held lock over at once, whereas
 * a program that expects seconds and finds milliseconds reads a date far in the future and only waits
 * longer. To bound that wait, Coordis also gives its key a Redis expiry of the lock's ttl + 1 ms + one
 * second, that is one second after the value it wrote. That does not change the pattern for anyone:
 * every other client deletes or overwrites a value only once it has expired, and a key that vanishes
 * after its value expired is what they would have done anyway; it also means a crashed Coordis holder
 * leaves no key behind. Values other clients write carry no key expiry and are left that way. A value
 * that is not a plain decimal number (another lock format on the same name) is never taken over.
 *
 * <h2>Weaker than the default lock</h2>
 * Safety depends on synchronised wall clocks: Coordis computes expiries from the Redis server's
 * clock ({@code TIME}), so Coordis clients agree among themselves, but other programs compare the value
 * with their own clocks, which must therefore agree with the Redis server's to well within the ttl.
 * There is no Redis expiry on values other programs write, so a crashed legacy holder blocks everyone
 * until the time it stored has passed. Waiting polls (legacy clients announce nothing): with a
 * backoff that starts at 10 ms and doubles up to half a second, never sleeping past the stored
 * expiry, plus random jitter; callers in one process still queue locally first.
 *
 * <h2>Leases</h2>
 * Acquisitions get a fencing number from a counter beside the key, like the default lock; only Coordis
 * acquisitions count it. The lease's {@link io.coordis.lock.Lease#token()} is the value written at acquisition;
 * renewal compares the value with the one this lease wrote last and writes a later expiry. One race of
 * the pattern remains: a legacy client that read an expired value just before Coordis took the lock over
 * still sends its {@code GETSET}, sees an unexpired value and backs off, but its own expiry has replaced
 * ours. The lease then cannot renew and is reported lost, and its release leaves the key to expire at
 * the other client's time. That is safe (nobody else holds the lock meanwhile), only slower.
 *
 * <p>Thread-safe. Blocking and interrupt behaviour as in {@link io.coordis.lock.DistributedLock}. A key of another type
 * than string throws {@link io.coordis.WrongTypeException}.
 */
final class LegacyLock extends ContendedLock {
    static final LuaScript ACQUIRE = LuaScript.load(LegacyLock.class, "legacy-acquire.lua");
    static final LuaScript RELEASE = LuaScript.load(LegacyLock.class, "legacy-release.lua");
    static final LuaScript EXTEND = LuaScript.load(LegacyLock.class, "legacy-extend.lua");

    /** How long the key outlives the expiry stored in it, so that a crashed Coordis holder leaves no key. */
    static final Duration KEY_EXPIRY_MARGIN = Duration.ofSeconds(1);
    static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    static final long MIN_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Node node;
    private static final String MARGIN_ARG = Durations.millis(KEY_EXPIRY_MARGIN);

    LegacyLock(Node node, String name, String key, LockOptions options, Contention contention, Timer timer) {
        super("legacy lock", name, key, options, contention, timer);
        this.node = node;
    }

    /** Polls with a doubling backoff, cut short where the holder's stored expiry passes, plus jitter. */
    @Override
    public Contention.Pacer pacer() {
        return new Contention.Pacer() {
            private long backoff = FIRST_BACKOFF_NANOS;

            @Override
            public CompletableFuture<Boolean> pause(Contention.Attempt last, long maxNanos) {
                long pause = pauseNanos(backoff, last.holderMillis(), ThreadLocalRandom.current().nextDouble());
                backoff = nextBackoff(backoff);
                return timer.delay(Math.max(0, Math.min(maxNanos, pause))).thenApply(v -> true);
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * The pause before the next attempt: {@code backoffNanos}, cut short where the holder's stored
     * expiry passes ({@code untilExpiryMillis}; negative when unknown), plus a jitter of 1 ms up to
     * half the backoff more, chosen by {@code random} in [0, 1), so that competing clients spread out.
     */
    static long pauseNanos(long backoffNanos, long untilExpiryMillis, double random) {
        long bound = untilExpiryMillis < 0 ? backoffNanos
                : Math.min(backoffNanos, TimeUnit.MILLISECONDS.toNanos(untilExpiryMillis));
        return bound + MIN_JITTER_NANOS + (long) (random * (backoffNanos / 2));
    }

    /** The backoff after {@code backoffNanos}: doubled, at most {@link #MAX_BACKOFF_NANOS}. */
    static long nextBackoff(long backoffNanos) {
        return Math.min(backoffNanos * 2, MAX_BACKOFF_NANOS);
    }

    /** One try; a busy one writes nothing whether or not the caller waits (legacy waiters poll). */
    @Override
    public CompletableFuture<Contention.Attempt> attempt(LocalQueue.Permit permit, boolean waits) {
        long start = timer.now();
        CompletableFuture<Object> reply = node.eval(ACQUIRE, List.of(key, keys.fence()), List.of(Durations.millis(options.ttl()),
                MARGIN_ARG, Durations.millis(options.counterRetention())));
        return tryReply(node, reply).handle((answer, f) -> {
            if (f != null) {
                CoordisException e = failure(node, f);
                if (e instanceof NodeUnavailableException) {
                    // The script may still have run; release what it may have written so nothing stays locked.
                    reply.whenComplete((v, late) -> {
                        if (late == null && isOne(v)) {
                            releaseInBackground((String) ((List<?>) v).get(2));
                        }
                    });
                }
                throw e;
            }
            List<?> result = Replies.list(answer, 2, ACQUIRE, node.address());
            if (Replies.isOne(result)) {
                Replies.list(result, 3, ACQUIRE, node.address());
                long fence = Replies.number(result, 1, ACQUIRE, node.address());
                String value = Replies.string(result, 2, ACQUIRE, node.address());
                HeldLease lease = new HeldLease(name, key, value, fence,
                        List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, "")), options, start,
                        new Written(value), timer, contention.telemetry, permit::close);
                return Contention.Attempt.granted(lease);
            }
            return Contention.Attempt.busy(Replies.number(result, 1, ACQUIRE, node.address()));
        });
    }

    /** Deletes the key while it holds {@code value}, the expiry a lease wrote. */
    @Override
    void releaseInBackground(String value) {
        node.eval(RELEASE, List.of(key), List.of(value));
    }

    private static boolean isOne(Object reply) {
        return reply instanceof List<?> l && Replies.isOne(l);
    }

    /**
     * Who holds the lock now. Legacy holders, Coordis ones included, leave no details, so the holder id,
     * fencing number and start time are empty; {@link LockHolder#ttl()} is the time until the stored
     * expiry passes. A key whose stored expiry has passed is reported as not held.
     */
    @Override
    Optional<ForcedUnlock> force(String expected, String reason) {
        return Forcing.forceOne(node, key, expected, reason, options.counterRetention());
    }

    @Override
    public Optional<LockHolder> holder() {
        List<?> r = readHolder(node, ACQUIRE, List.of(key), List.of()); // without a ttl it only reads
        if (r.get(0) == null) {
            return Optional.empty();
        }
        long left = Replies.number(Replies.list(r, 2, ACQUIRE, node.address()), 1, ACQUIRE, node.address());
        return Optional.of(new LockHolder(key, Replies.string(r, 0, ACQUIRE, node.address()), Optional.empty(), OptionalLong.empty(),
                left >= 0 ? Optional.of(Duration.ofMillis(left)) : Optional.empty(), Optional.empty()));
    }

    @Override
    public String toString() {
        return "LegacyLock[" + key + " on " + node.address() + ", " + options + "]";
    }

    /**
     * The value one lease wrote last. Extensions and the release run one after another, each comparing
     * with the value the previous one left, so a manual extend racing the watchdog cannot make the lease
     * look taken over.
     */
    private final class Written implements LeaseOps {
        private volatile String value;
        private CompletableFuture<?> last = CompletableFuture.completedFuture(null);

        Written(String value) {
            this.value = value;
        }

        @Override
        public CompletableFuture<Boolean> extend(String token, Duration ttl) {
            return afterLast(() -> node.eval(EXTEND, List.of(key),
                    List.of(value, Durations.millis(ttl), MARGIN_ARG)).thenApply(reply -> {
                        if (isOne(reply)) {
                            value = Replies.string(Replies.list(reply, 2, EXTEND, node.address()), 1, EXTEND, node.address());
                            return true;
                        }
                        return false;
                    }));
        }

        @Override
        public boolean release(String token) {
            CompletableFuture<Boolean> released = afterLast(
                    () -> node.eval(RELEASE, List.of(key), List.of(value)).thenApply(LegacyLock::isOne));
            // Long enough for an extension still in flight and then the release itself.
            return node.awaitUninterruptibly(released, node.commandTimeout().multipliedBy(2));
        }

        /** Writes an expiry {@code keepFor} from now, as an extension does, and stops there. */
        @Override
        public boolean releaseAfter(String token, Duration keepFor) {
            return node.awaitUninterruptibly(extend(token, keepFor), node.commandTimeout().multipliedBy(2));
        }

        private synchronized <T> CompletableFuture<T> afterLast(Supplier<CompletableFuture<T>> op) {
            CompletableFuture<T> next = last.handle((v, f) -> null).thenCompose(ignored -> op.get());
            last = next;
            return next;
        }
    }
}
