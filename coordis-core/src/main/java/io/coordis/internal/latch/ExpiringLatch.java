package io.coordis.internal.latch;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Named;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.latch.CountDownLatch;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A {@link CountDownLatch} kept in one expiring key ({@link LatchLayout}): {@code count-down.lua} counts down and
 * publishes the opening, {@code count.lua} reads the count, and each wait is a {@link LatchWait}. Both scripts store
 * the initial count first when the key is absent. Thread-safe.
 */
final class ExpiringLatch extends Named implements CountDownLatch {
    static final LuaScript COUNT = LuaScript.load(ExpiringLatch.class, "count.lua");
    static final LuaScript COUNT_DOWN = LuaScript.load(ExpiringLatch.class, "count-down.lua");

    private final Node node;
    private final Timer timer;
    private final Telemetry telemetry;
    private final String channel;
    private final long initialCount;
    private final Duration expireAfter;

    ExpiringLatch(Node node, Timer timer, Telemetry telemetry, String name, String key, String channel,
                  long initialCount, Duration expireAfter) {
        super("latch", name, key);
        this.node = node;
        this.timer = timer;
        this.telemetry = telemetry;
        this.channel = channel;
        this.initialCount = initialCount;
        this.expireAfter = expireAfter;
    }

    @Override
    public long initialCount() {
        return initialCount;
    }

    @Override
    public Duration expireAfter() {
        return expireAfter;
    }

    @Override
    public long countDown() {
        try {
            Object reply = node.awaitUninterruptibly(node.eval(COUNT_DOWN, List.of(key), List.of(channel,
                    Long.toString(initialCount), Durations.millis(expireAfter))), node.commandTimeout());
            List<?> counted = Replies.list(reply, 2, COUNT_DOWN, node.address());
            long count = Replies.number(counted, 0, COUNT_DOWN, node.address());
            telemetry.countedDown(name, count, Replies.number(counted, 1, COUNT_DOWN, node.address()) == 1);
            return count;
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public long getCount() {
        try {
            return node.awaitUninterruptibly(count(), node.commandTimeout());
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    /** The stored count, storing the initial count first when none is stored. Does not block. */
    CompletableFuture<Long> count() {
        return node.eval(COUNT, List.of(key), List.of(Long.toString(initialCount), Durations.millis(expireAfter)))
                .thenApply(reply -> Replies.number(Replies.list(reply, 1, COUNT, node.address()), 0, COUNT,
                        node.address()));
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        CompletableFuture<Boolean> waiting = awaitAsync(timeout);
        try {
            return waiting.get();
        } catch (InterruptedException e) {
            waiting.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public CompletableFuture<Boolean> awaitAsync(Duration timeout) {
        long nanos = Durations.saturatedNanos(Durations.notNegative(timeout, "timeout"));
        long start = timer.now();
        CompletableFuture<Boolean> waiting = new LatchWait(this, node, timer, channel, nanos).start();
        waiting.thenAccept(open -> telemetry.latchAwaited(name, open, Duration.ofNanos(timer.now() - start)));
        return timer.relay(waiting, open -> open, this::failure, open -> { });
    }

    /** A failure of a wait as the application sees it: a Redis failure names this latch. */
    private Throwable failure(Throwable f) {
        Throwable cause = f instanceof CompletionException && f.getCause() != null ? f.getCause() : f;
        return cause instanceof CoordisException c ? named(c) : cause;
    }

    @Override
    public String toString() {
        return "CountDownLatch[" + name + ", key " + key + ", count " + initialCount + ", expire after "
                + expireAfter + "]";
    }
}
