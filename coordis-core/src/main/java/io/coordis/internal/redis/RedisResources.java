package io.coordis.internal.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The event loops and timers shared by every node of one client, so that a client of N nodes does not
 * run N sets of I/O threads. Closed by its owner after its nodes.
 *
 * <p>A lost connection is reconnected after jittered pauses doubling from 5 ms up to {@link #MAX_RECONNECT_DELAY}
 * (Lettuce's default climbs to 30 s: after Redis was down or loading its dataset for a while, a client would
 * stay disconnected for up to as long again once Redis was back).
 */
public final class RedisResources implements AutoCloseable {
    /** The longest pause between two reconnection attempts. */
    public static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

    final ClientResources lettuce;

    public RedisResources() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.lettuce = DefaultClientResources.builder().ioThreadPoolSize(threads).computationThreadPoolSize(threads)
                .reconnectDelay(Delay.equalJitter(Duration.ofMillis(5), MAX_RECONNECT_DELAY, 5, TimeUnit.MILLISECONDS))
                .build();
    }

    @Override
    public void close() {
        lettuce.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
