package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.internal.redis.LuaScript;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A Redis node for Redlock's steps without a network: every script sent waits until the test answers it
 * ({@link #reply}), unless an automatic answer is set; INFO reports {@link #uptimeSeconds}.
 */
final class FakeLockNode implements LockNode {
    /** One script sent. */
    record Call(LuaScript script, List<String> keys, List<String> args, CompletableFuture<Object> reply) {
    }

    private final String address;
    private final List<Call> calls = new ArrayList<>();
    final AtomicInteger timedOut = new AtomicInteger();
    volatile long uptimeSeconds = 3600;
    volatile Function<Call, Object> automatic;

    FakeLockNode(String address) {
        this.address = address;
    }

    static List<FakeLockNode> of(int n) {
        List<FakeLockNode> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(new FakeLockNode("10.0.0." + (i + 1) + ":6379"));
        }
        return nodes;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        Call c = new Call(script, keys, args, new CompletableFuture<>());
        synchronized (calls) {
            calls.add(c);
        }
        Function<Call, Object> auto = automatic;
        if (auto != null) {
            c.reply().complete(auto.apply(c));
        }
        return c.reply();
    }

    @Override
    public CompletableFuture<Map<String, String>> info(String section) {
        return CompletableFuture.completedFuture(Map.of("run_id", "run-" + address,
                "uptime_in_seconds", Long.toString(uptimeSeconds)));
    }

    @Override
    public CompletableFuture<String> set(String key, String value) {
        return CompletableFuture.completedFuture("OK");
    }

    @Override
    public void timedOut(CompletableFuture<?> sent) {
        timedOut.incrementAndGet();
    }

    @Override
    public CoordisException timeoutFailure(Duration timeout) {
        return new NodeUnavailableException(address, "Redis at " + address + ": no reply within "
                + timeout.toMillis() + " ms", null, true);
    }

    /** Answers the latest unanswered call of {@code script} with the array {@code values}. */
    void reply(LuaScript script, Object... values) {
        pending(script).reply().complete(List.of(values));
    }

    /** Fails the latest unanswered call of {@code script}. */
    void fail(LuaScript script, RuntimeException failure) {
        pending(script).reply().completeExceptionally(failure);
    }

    /** The latest unanswered call of {@code script}. */
    Call pending(LuaScript script) {
        synchronized (calls) {
            for (int i = calls.size() - 1; i >= 0; i--) {
                Call c = calls.get(i);
                if (c.script() == script && !c.reply().isDone()) {
                    return c;
                }
            }
            throw new AssertionError("no " + script + " call waits on " + address);
        }
    }

    /** Every call of {@code script} so far. */
    List<Call> calls(LuaScript script) {
        synchronized (calls) {
            return calls.stream().filter(c -> c.script() == script).toList();
        }
    }
}
