package io.coordis;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The two sides of a fault test: a client that talks to Redis through a {@link FaultProxy} with a short command
 * timeout, and one connected directly that plays the other contender; and the bounds such tests share.
 */
public final class ProxiedClients implements AutoCloseable {
    /** The command timeout of the client behind the proxy. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);
    /** Generous upper bound for a call that must fail with the command timeout rather than hang. */
    public static final Duration FAIL_BOUND = COMMAND_TIMEOUT.plusSeconds(1);
    /**
     * A TTL far past the bounds below: only what the client sends after a failed call (a release, a resignation)
     * can free the lock or end the leadership within them.
     */
    public static final Duration LONG_TTL = Duration.ofSeconds(20);
    /** How soon after the failed call (or the server's pause) the other side must get what was freed. */
    public static final Duration FREED_BOUND = Duration.ofSeconds(2);
    /** A server pause longer than the command timeout, short enough for a new connection's handshake to wait out. */
    public static final Duration PAUSE = COMMAND_TIMEOUT.plusMillis(300);

    private final FaultProxy proxy;
    private final Coordis viaProxy;
    private final Coordis direct;

    private ProxiedClients(FaultProxy proxy, Coordis viaProxy, Coordis direct) {
        this.proxy = proxy;
        this.viaProxy = viaProxy;
        this.direct = direct;
    }

    public static ProxiedClients to(RedisServer server) {
        FaultProxy proxy = FaultProxy.to(server);
        Coordis viaProxy = null;
        try {
            viaProxy = TestClients.builder().url(proxy.uri()).commandTimeout(COMMAND_TIMEOUT).connect();
            return new ProxiedClients(proxy, viaProxy, TestClients.connect(server.uri()));
        } catch (RuntimeException | Error e) {
            if (viaProxy != null) {
                viaProxy.close();
            }
            proxy.close();
            throw e;
        }
    }

    public FaultProxy proxy() {
        return proxy;
    }

    /** The client behind the proxy. */
    public Coordis viaProxy() {
        return viaProxy;
    }

    /** The client connected to Redis directly. */
    public Coordis direct() {
        return direct;
    }

    /** Closes both clients, failing if either close hangs, then the proxy. */
    @Override
    public void close() {
        try {
            closeWithin(viaProxy, Duration.ofSeconds(10));
            closeWithin(direct, Duration.ofSeconds(10));
        } finally {
            proxy.close();
        }
    }

    /** Closes {@code c} on another thread and fails if that does not finish within {@code bound}. */
    public static void closeWithin(AutoCloseable c, Duration bound) {
        CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            closing.get(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(c + ".close() did not return within " + bound + " (hung)");
        } catch (ExecutionException e) {
            throw new AssertionError(c + ".close() failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while closing " + c, e);
        }
    }
}
