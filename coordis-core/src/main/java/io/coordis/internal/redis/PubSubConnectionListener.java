package io.coordis.internal.redis;

import io.coordis.internal.Timer;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * What one pub/sub connection of {@link Subscriptions} hears, passed on only while it is the current connection:
 * messages to the listeners, Redis's subscribe confirmations to {@link Subscriptions#confirm}. A message or
 * confirmation arriving on any other connection is ignored, so a listener never hears a message twice. Its
 * disconnection is reported to {@link Subscriptions#lost} on the client's callback executor, never on the I/O thread.
 * Called by Lettuce's I/O thread; holds no state of its own.
 */
final class PubSubConnectionListener extends RedisPubSubAdapter<String, String>
        implements RedisConnectionStateListener {
    private final Subscriptions owner;
    private final Listeners listeners;
    private final Timer timer;
    private final StatefulRedisPubSubConnection<String, String> conn;

    private PubSubConnectionListener(Subscriptions owner, Listeners listeners, Timer timer,
                                     StatefulRedisPubSubConnection<String, String> conn) {
        this.owner = owner;
        this.listeners = listeners;
        this.timer = timer;
        this.conn = conn;
    }

    /** Adds a listener to {@code conn} for its messages, confirmations and disconnection; returns {@code conn}. */
    static StatefulRedisPubSubConnection<String, String> attach(Subscriptions owner, Listeners listeners, Timer timer,
                                                               StatefulRedisPubSubConnection<String, String> conn) {
        PubSubConnectionListener l = new PubSubConnectionListener(owner, listeners, timer, conn);
        conn.addListener((RedisPubSubListener<String, String>) l);
        conn.addListener((RedisConnectionStateListener) l);
        return conn;
    }

    @Override
    public void message(String channel, String message) {
        if (owner.current() == conn) {
            listeners.deliver(channel, false, channel, message);
        }
    }

    @Override
    public void message(String pattern, String channel, String message) {
        if (owner.current() == conn) {
            listeners.deliver(pattern, true, channel, message);
        }
    }

    @Override
    public void subscribed(String channel, long count) {
        if (owner.current() == conn) {
            owner.confirm(channel, false);
        }
    }

    @Override
    public void psubscribed(String pattern, long count) {
        if (owner.current() == conn) {
            owner.confirm(pattern, true);
        }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
        // off the I/O thread, on the client's callback executor: replacing takes the owner's monitor
        // (not CompletableFuture's default executor, which on Java 25 is the common pool even where it has
        // a single worker, shared with the application)
        timer.deliver(() -> owner.lost(conn));
    }
}
