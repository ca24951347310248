package io.coordis.internal.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Channel listeners multiplexed over one pub/sub connection per node, opened on first use. A channel is
 * subscribed at Redis while at least one listener is registered. Lettuce re-subscribes after a reconnect.
 */
final class Subscriptions {
    private final String address;
    private final RedisClient client;
    private final Duration timeout;
    /** Read without locking by the I/O thread that delivers messages; changed under this object's monitor. */
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private StatefulRedisPubSubConnection<String, String> connection;
    private boolean closed;

    private static final class Channel {
        final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> subscribed;
    }

    Subscriptions(String address, RedisClient client, Duration timeout) {
        this.address = address;
        this.client = client;
        this.timeout = timeout;
    }

    Subscription subscribe(String channelName, Consumer<String> listener) throws InterruptedException {
        CompletableFuture<Void> ready;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("connection to " + address + " is closed");
            }
            StatefulRedisPubSubConnection<String, String> conn = connection();
            Channel channel = channels.computeIfAbsent(channelName, n -> new Channel());
            channel.listeners.add(listener);
            if (channel.subscribed == null || channel.subscribed.isCompletedExceptionally()) {
                CompletableFuture<Void> f = new CompletableFuture<>();
                conn.async().subscribe(channelName).whenComplete((v, e) -> {
                    if (e == null) {
                        f.complete(null);
                    } else {
                        f.completeExceptionally(RedisErrors.translate(e, address));
                    }
                });
                channel.subscribed = f;
            }
            ready = channel.subscribed;
        }
        Subscription subscription = () -> unsubscribe(channelName, listener);
        try {
            awaitReady(ready);
        } catch (RuntimeException | InterruptedException e) {
            subscription.close();
            throw e;
        }
        return subscription;
    }

    private void awaitReady(CompletableFuture<Void> ready) throws InterruptedException {
        try {
            ready.get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), address);
        } catch (java.util.concurrent.TimeoutException e) {
            throw RedisErrors.translate(new java.util.concurrent.TimeoutException(
                    "SUBSCRIBE not confirmed within " + timeout.toMillis() + " ms"), address);
        }
    }

    private synchronized void unsubscribe(String channelName, Consumer<String> listener) {
        Channel channel = channels.get(channelName);
        if (channel == null || !channel.listeners.remove(listener)) {
            return;
        }
        if (channel.listeners.isEmpty()) {
            channels.remove(channelName);
            if (!closed && connection != null && connection.isOpen()) {
                connection.async().unsubscribe(channelName);
            }
        }
    }

    private StatefulRedisPubSubConnection<String, String> connection() {
        if (connection == null) {
            try {
                connection = client.connectPubSub(StringCodec.UTF8);
            } catch (RuntimeException e) {
                throw RedisErrors.translate(e, address);
            }
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    deliver(channel, message);
                }
            });
        }
        return connection;
    }

    private void deliver(String channelName, String message) {
        Channel channel = channels.get(channelName);
        if (channel != null) {
            for (Consumer<String> l : channel.listeners) {
                l.accept(message);
            }
        }
    }

    /**
     * Closes the pub/sub connection. Closing waits for Lettuce's I/O thread, so it happens outside this
     * object's monitor: the I/O thread must never wait for a lock held by a thread that waits for it.
     */
    void close() {
        StatefulRedisPubSubConnection<String, String> toClose;
        synchronized (this) {
            closed = true;
            channels.clear();
            toClose = connection;
        }
        if (toClose != null) {
            toClose.close();
        }
    }
}
