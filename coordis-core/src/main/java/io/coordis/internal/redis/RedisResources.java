package io.coordis.internal.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import java.util.concurrent.TimeUnit;

/**
 * The event loops and timers shared by every node of one client, so that a client of N nodes does not
 * run N sets of I/O threads. Closed by its owner after its nodes.
 */
public final class RedisResources implements AutoCloseable {
    final ClientResources lettuce;

    public RedisResources() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.lettuce = DefaultClientResources.builder().ioThreadPoolSize(threads).computationThreadPoolSize(threads).build();
    }

    @Override
    public void close() {
        lettuce.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
