package io.coordis.internal.redis;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RedisResourcesTest {
    private static final int COMMANDS = 50;

    @Test
    void everyConnectionConsolidatesFlushes() {
        try (RedisResources resources = new RedisResources()) {
            assertThat(resources.lettuce.nettyCustomizer()).isSameAs(RedisResources.CONSOLIDATE_FLUSHES);
        }
    }

    @Test
    void commandsQueuedTogetherLeaveInOneWrite() throws Exception {
        // as Lettuce callers do: each command written and flushed on its own, from outside the event loop,
        // while the loop is busy with other work
        assertThat(transportFlushes(RedisResources.CONSOLIDATE_FLUSHES::afterChannelInitialized)).isOne();
        assertThat(transportFlushes(channel -> { })).as("without the consolidator").isEqualTo(COMMANDS);
    }

    @Test
    void aCommandAloneIsFlushedWithoutWaitingForMore() throws Exception {
        DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
        try {
            AtomicInteger received = new AtomicInteger();
            AtomicInteger flushes = new AtomicInteger();
            Channel client = connect(group, received, flushes, RedisResources.CONSOLIDATE_FLUSHES::afterChannelInitialized);
            assertThat(client.pipeline().get(FlushConsolidationHandler.class)).isNotNull();
            client.writeAndFlush("PING").sync();
            awaitReceived(received, 1);
            assertThat(flushes).hasValue(1);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** How many flushes reached the transport for {@value #COMMANDS} commands written and flushed one by one. */
    private static int transportFlushes(Consumer<Channel> customizer) throws Exception {
        DefaultEventLoopGroup group = new DefaultEventLoopGroup(1);
        try {
            AtomicInteger received = new AtomicInteger();
            AtomicInteger flushes = new AtomicInteger();
            Channel client = connect(group, received, flushes, customizer);
            CountDownLatch busy = new CountDownLatch(1);
            client.eventLoop().execute(() -> {
                try {
                    busy.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            for (int i = 0; i < COMMANDS; i++) {
                client.writeAndFlush("PING " + i);
            }
            busy.countDown();
            awaitReceived(received, COMMANDS);
            return flushes.get();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A client channel to an in-process peer that counts what it receives; {@code flushes} counts the flushes
     * that reach the transport (a socket write each on a real connection), behind whatever {@code customizer}
     * puts into the pipeline.
     */
    private static Channel connect(DefaultEventLoopGroup group, AtomicInteger received, AtomicInteger flushes,
                                   Consumer<Channel> customizer) throws InterruptedException {
        LocalAddress address = new LocalAddress("coordis-flush-" + System.nanoTime());
        new ServerBootstrap().group(group).channel(LocalServerChannel.class)
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        received.incrementAndGet();
                        ReferenceCountUtil.release(msg);
                    }
                })
                .bind(address).sync();
        return new Bootstrap().group(group).channel(LocalChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        customizer.accept(channel);
                        channel.pipeline().addFirst("transport-flushes", new ChannelOutboundHandlerAdapter() {
                            @Override
                            public void flush(ChannelHandlerContext ctx) {
                                flushes.incrementAndGet();
                                ctx.flush();
                            }
                        });
                    }
                })
                .connect(address).sync().channel();
    }

    private static void awaitReceived(AtomicInteger received, int total) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.get() < total) {
            assertThat(System.nanoTime()).as("all %d commands received within 10 s, got %s", total, received.get())
                    .isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
