package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeVote;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Named;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Permit;
import io.coordis.lock.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A semaphore on one Redis node whose waiters stand in one line at Redis ({@code semaphore-acquire.lua}): holders
 * in a sorted set by expiry, each permit a lease renewed by {@code semaphore-extend.lua} and given back by
 * {@code semaphore-release.lua}. Each acquisition is a {@link PermitRequest}; the blocking methods wait on it.
 */
final class QueuedSemaphore extends Named implements Semaphore, LeaseOps {
    private static final Logger log = LoggerFactory.getLogger(QueuedSemaphore.class);
    static final LuaScript ACQUIRE = LuaScript.load(QueuedSemaphore.class, "semaphore-acquire.lua");
    static final LuaScript RELEASE = LuaScript.load(QueuedSemaphore.class, "semaphore-release.lua");
    static final LuaScript EXTEND = LuaScript.load(QueuedSemaphore.class, "semaphore-extend.lua");
    /**
     * How long a waiter's place in line lasts unless renewed (it is renewed every third of this): a waiter that
     * died holds up the line at most this long.
     */
    static final Duration PLACE = Duration.ofSeconds(3);
    /** The message that wakes every waiter (a release wakes only the first in line, by its token). */
    static final String EVERYONE = "permits";

    final Node node;
    final LockOptions options;
    final Timer timer;
    final Telemetry telemetry;
    private final int initialPermits;
    private final List<String> acquireKeys;
    private final List<String> releaseKeys;
    private final List<String> extendKeys;
    final String channel;

    QueuedSemaphore(Node node, String name, String key, int permits, LockOptions options, Timer timer,
                    Telemetry telemetry) {
        super("semaphore", name, key);
        this.node = node;
        this.initialPermits = checkPermits(permits, "permit count");
        this.options = options;
        this.timer = timer;
        this.telemetry = telemetry;
        this.acquireKeys = SemaphoreLayout.acquireKeys(key);
        this.releaseKeys = SemaphoreLayout.releaseKeys(key);
        this.extendKeys = SemaphoreLayout.extendKeys(key);
        this.channel = SemaphoreLayout.releasedChannel(key);
    }

    static int checkPermits(int permits, String what) {
        if (permits < 1) {
            throw new IllegalArgumentException(what + " must be at least 1, was " + permits);
        }
        return permits;
    }

    @Override
    public Optional<Permit> tryAcquire() {
        return tryAcquire(1);
    }

    @Override
    public Optional<Permit> tryAcquire(int permits) {
        try {
            return await(acquireAsync(permits, Duration.ZERO));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while trying " + object(), e);
        }
    }

    @Override
    public Optional<Permit> acquire(Duration wait) throws InterruptedException {
        return acquire(1, wait);
    }

    @Override
    public Optional<Permit> acquire(int permits, Duration wait) throws InterruptedException {
        return await(request(permits, Durations.notNegative(Objects.requireNonNull(wait, "wait"), "wait")));
    }

    @Override
    public Permit acquire() throws InterruptedException {
        return acquire(1);
    }

    @Override
    public Permit acquire(int permits) throws InterruptedException {
        return await(request(permits, null)).orElseThrow();
    }

    @Override
    public CompletableFuture<Optional<Permit>> acquireAsync(Duration wait) {
        return acquireAsync(1, wait);
    }

    @Override
    public CompletableFuture<Optional<Permit>> acquireAsync(int permits, Duration wait) {
        // a permit granted in the instant the caller cancelled is given back
        return timer.relay(request(permits, Durations.notNegative(Objects.requireNonNull(wait, "wait"), "wait")),
                p -> p, f -> f, p -> p.ifPresent(this::abandon));
    }

    /** Starts an acquisition of {@code permits} waiting at most {@code wait}, or as long as it takes for null. */
    private CompletableFuture<Optional<Permit>> request(int permits, Duration wait) {
        checkPermits(permits, "permits wanted");
        return new PermitRequest(this, permits, wait).start();
    }

    /**
     * The outcome of {@code request}; an interrupt cancels it (a permit granted in the same instant is released)
     * and is thrown.
     */
    private Optional<Permit> await(CompletableFuture<Optional<Permit>> request) throws InterruptedException {
        try {
            return request.get();
        } catch (InterruptedException e) {
            if (!request.cancel(true)) {
                request.getNow(Optional.empty()).ifPresent(Permit::release);
            }
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CoordisException ce) {
                throw named(ce);
            }
            throw cause instanceof RuntimeException re ? re : new CompletionException(cause);
        } catch (CancellationException e) {
            throw new CoordisException(node.address(), object() + ": the acquisition was cancelled", e);
        }
    }

    /** Sends one try of {@code semaphore-acquire.lua}; {@code placeMillis} 0 takes no place in line. */
    CompletableFuture<Object> sendAcquire(String token, int permits, long placeMillis) {
        return node.eval(ACQUIRE, acquireKeys, List.of(token, Integer.toString(permits),
                Durations.millis(options.ttl()), options.holderId(), Integer.toString(initialPermits),
                Long.toString(placeMillis), channel, Durations.millis(options.counterRetention())));
    }

    /** Lets go of {@code permit}, granted to a caller that cancelled in that instant, without waiting. */
    private void abandon(Permit permit) {
        HeldPermit held = (HeldPermit) permit;
        held.abandon();
        releaseInBackground(held.token());
    }

    /** Takes {@code token} out of the semaphore (holder or waiter), not waited for; a failure is only logged. */
    void releaseInBackground(String token) {
        sendRelease(token).whenComplete((r, failure) -> {
            if (failure != null) {
                log.debug("releasing a token of {} failed; it expires by itself: {}", object(), failure.getMessage());
            }
        });
    }

    private CompletableFuture<Object> sendRelease(String token) {
        return node.eval(RELEASE, releaseKeys, List.of(token, channel));
    }

    /** The permit for an acquisition of {@code token} granted with {@code fence} by a request sent at {@code start}. */
    HeldPermit permit(String token, long fence, int permits, long start) {
        return new HeldPermit(name, key, token, fence, permits,
                List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, "")), options, start, this, timer,
                telemetry);
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        return node.eval(EXTEND, extendKeys, List.of(token, Durations.millis(ttl)))
                .thenApply(reply -> Replies.isOne(Replies.list(reply, 1, EXTEND, node.address())));
    }

    @Override
    public boolean release(String token) {
        Object reply = node.awaitUninterruptibly(sendRelease(token), node.commandTimeout());
        return Replies.isOne(Replies.list(reply, 1, RELEASE, node.address()));
    }

    @Override
    public boolean releaseAfter(String token, Duration keepFor) {
        return node.awaitUninterruptibly(extend(token, keepFor), node.commandTimeout());
    }

    @Override
    public int permits() {
        String stored = call(node.get(SemaphoreLayout.permitsKey(key)), "reading the permit count of");
        if (stored == null) {
            return initialPermits;
        }
        try {
            return Integer.parseInt(stored);
        } catch (NumberFormatException e) {
            throw new CoordisException(node.address(), object() + ": the permit count at '"
                    + SemaphoreLayout.permitsKey(key) + "' is not a number", e);
        }
    }

    @Override
    public void setPermits(int permits) {
        checkPermits(permits, "permit count");
        // the count lives as long as the semaphore is used (its keys' PX): an idle one's lasts until its next use
        call(node.setKeepingTtl(SemaphoreLayout.permitsKey(key), Integer.toString(permits)),
                "setting the permit count of");
        call(node.publish(channel, EVERYONE), "waking the waiters of");
    }

    private <T> T call(CompletableFuture<T> sent, String doing) {
        try {
            return node.await(sent, node.commandTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while " + doing + " " + object(), e);
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public String toString() {
        return "QueuedSemaphore[" + key + " on " + node.address() + ", " + options + "]";
    }
}
