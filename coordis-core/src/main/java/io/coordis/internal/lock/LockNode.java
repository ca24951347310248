package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

/**
 * One Redis master as Redlock's steps use it: send a script or a command, and give up on a command that
 * had no reply in time. {@link #of} wraps a connection; a test answers the futures by hand. Nothing here
 * blocks. Implementations are thread-safe.
 */
interface LockNode {

    /** {@code host:port}, as votes and failures name the node. */
    String address();

    /** Runs {@code script} on the node. */
    CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args);

    /** {@code INFO section} as a map of its fields. */
    CompletableFuture<Map<String, String>> info(String section);

    /** {@code SET key value}. */
    CompletableFuture<String> set(String key, String value);

    /**
     * {@code sent} (a future this node returned) had no reply by its deadline: its connection is replaced,
     * since a late reply could otherwise be taken for the answer to a later command.
     */
    void timedOut(CompletableFuture<?> sent);

    /** The failure that reports no reply within {@code timeout}, naming this node. */
    CoordisException timeoutFailure(Duration timeout);

    /**
     * {@code sent} limited to {@code timeout} on {@code timer}'s coarse deadline: past it, the result fails
     * with {@link #timeoutFailure} and the connection is given up ({@link #timedOut}).
     */
    default <T> CompletableFuture<T> within(CompletableFuture<T> sent, Timer timer, Duration timeout) {
        CompletableFuture<T> bounded = timer.failAfter(sent.copy(), Math.max(1, timeout.toNanos()));
        return bounded.exceptionallyCompose(f -> {
            Throwable cause = f instanceof CompletionException && f.getCause() != null ? f.getCause() : f;
            if (cause instanceof TimeoutException) {
                timedOut(sent);
                cause = timeoutFailure(timeout);
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /** {@code node} as Redlock sees it. */
    static LockNode of(Node node) {
        return new LockNode() {
            @Override
            public String address() {
                return node.address();
            }

            @Override
            public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
                return node.eval(script, keys, args);
            }

            @Override
            public CompletableFuture<Map<String, String>> info(String section) {
                return node.info(section);
            }

            @Override
            public CompletableFuture<String> set(String key, String value) {
                return node.set(key, value);
            }

            @Override
            public void timedOut(CompletableFuture<?> sent) {
                node.timedOut(sent);
            }

            @Override
            public CoordisException timeoutFailure(Duration timeout) {
                return node.timeoutFailure(timeout);
            }

            @Override
            public String toString() {
                return node.toString();
            }
        };
    }
}
