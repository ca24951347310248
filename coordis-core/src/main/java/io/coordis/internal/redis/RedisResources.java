package io.coordis.internal.redis;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
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
 * <p>Resources the application gave ({@code Coordis.Builder.clientResources}) are used through a
 * {@link ClientResources#mutate() mutated} copy with the same additions: the copy shares their event loops, timer,
 * event bus and command metrics, and shutting it down leaves them running for their owner to shut down.
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

    public RedisResources() {
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());
        this.lettuce = DefaultClientResources.builder().ioThreadPoolSize(threads).computationThreadPoolSize(threads)
                .reconnectDelay(Delay.equalJitter(Duration.ofMillis(5), MAX_RECONNECT_DELAY, 5, TimeUnit.MILLISECONDS))
                .nettyCustomizer(CONSOLIDATE_FLUSHES)
                .build();
    }

    /** A copy of {@code given} with this client's reconnection delay and flush consolidation after its own customizer. */
    public RedisResources(ClientResources given) {
        NettyCustomizer theirs = given.nettyCustomizer();
        this.lettuce = given.mutate()
                .reconnectDelay(Delay.equalJitter(Duration.ofMillis(5), MAX_RECONNECT_DELAY, 5, TimeUnit.MILLISECONDS))
                .nettyCustomizer(theirs == null ? CONSOLIDATE_FLUSHES : new NettyCustomizer() {
                    @Override
                    public void afterBootstrapInitialized(Bootstrap bootstrap) {
                        theirs.afterBootstrapInitialized(bootstrap);
                    }

                    @Override
                    public void afterChannelInitialized(Channel channel) {
                        theirs.afterChannelInitialized(channel);
                        CONSOLIDATE_FLUSHES.afterChannelInitialized(channel);
                    }
                })
                .build();
    }

    @Override
    public void close() {
        lettuce.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
