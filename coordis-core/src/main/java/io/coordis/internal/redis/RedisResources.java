package io.coordis.internal.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The event loops and timers shared by every node of one client, so that a client of N nodes does not
 * run N sets of I/O threads. Closed by its owner after its nodes.
 *
 * <p>A lost connection is reconnected after jittered pauses doubling from 5 ms up to {@link #MAX_RECONNECT_DELAY}
 * (Lettuce's default climbs to 30 s: after Redis was down or loading its dataset for a while, a client would
 * stay disconnected for up to as long again once Redis was back).
 *
 * <p>Every connection consolidates flushes: Lettuce writes and flushes each command on its own, so sixteen
 * threads sharing a connection cost the event loop sixteen socket writes (a third of its CPU in a many-keys
 * lock run) and Redis sixteen reads. Netty's {@link FlushConsolidationHandler} flushes once per batch of
 * writes the event loop takes from its queue (or at the end of a read), so commands that arrive together go out
 * in one write; a command alone still goes out in the same loop iteration.
 *
 * <p>Resources the application gave ({@code Coordis.Builder.clientResources}) are used as they are, without the
 * reconnection delay and flush consolidation above, and are never shut down here: their owner does that. (A
 * {@link ClientResources#mutate() mutated} copy would not do: it takes over the original's ownership flags, so
 * shutting the copy down shuts down the original's event executors.)
 */
public final class RedisResources implements AutoCloseable {
    /** The longest pause between two reconnection attempts. */
    public static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

    /** Puts a flush consolidator in front of the socket, for writes from outside the event loop too. */
    static final NettyCustomizer CONSOLIDATE_FLUSHES = new NettyCustomizer() {
        @Override
        public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst("coordis-flush", new FlushConsolidationHandler(
                    FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
        }
    };

    final ClientResources lettuce;
    /** Whether closing shuts {@link #lettuce} down: only resources made here. */
    private final boolean owned;

    public RedisResources() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.lettuce = DefaultClientResources.builder().ioThreadPoolSize(threads).computationThreadPoolSize(threads)
                .reconnectDelay(Delay.equalJitter(Duration.ofMillis(5), MAX_RECONNECT_DELAY, 5, TimeUnit.MILLISECONDS))
                .nettyCustomizer(CONSOLIDATE_FLUSHES)
                .build();
        this.owned = true;
    }

    /** The application's {@code given} resources, used as they are and never shut down by {@link #close()}. */
    public RedisResources(ClientResources given) {
        this.lettuce = given;
        this.owned = false;
    }

    @Override
    public void close() {
        if (owned) {
            lettuce.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
