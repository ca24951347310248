package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Channel and pattern listeners multiplexed over one pub/sub connection per node, opened on first use.
 * A channel (or pattern) is subscribed at Redis while at least one listener is registered on it.
 *
 * <p>After a lost connection Lettuce reconnects and subscribes again; when Redis confirms a channel
 * again, its listeners are told through {@link PubSubListener#gap()} that messages may have been lost.
 * A registration counts as confirmed when Redis's own subscribe reply for the channel arrives.
 *
 * <p>On a Redis Cluster the connection goes to one node; classic PUBLISH reaches subscribers on every node,
 * so listeners hear messages published anywhere in the cluster.
 */
final class Subscriptions {
    private static final Logger log = LoggerFactory.getLogger(Subscriptions.class);
    private final String address;
    private final Connector connector;
    private final Duration timeout;
    /** Read without locking by the I/O thread that delivers messages; changed under this object's monitor. */
    private final Map<String, Entry> channels = new ConcurrentHashMap<>();
    private final Map<String, Entry> patterns = new ConcurrentHashMap<>();
    private StatefulRedisPubSubConnection<String, String> connection;
    private boolean closed;

    private static final class Entry {
        final List<PubSubListener> listeners = new CopyOnWriteArrayList<>();
        /** Completes when Redis confirms the subscription; replaced under the monitor when sending failed. */
        volatile CompletableFuture<Void> confirmed;
        /** Set when the connection dropped; cleared, and reported as a gap, by the next confirmation. */
        final AtomicBoolean interrupted = new AtomicBoolean();
    }

    Subscriptions(String address, Connector connector, Duration timeout) {
        this.address = address;
        this.connector = connector;
        this.timeout = timeout;
    }

    /** Registers {@code listener} on one channel and blocks until Redis confirmed it (at most the timeout). */
    Subscription subscribe(String channelName, Consumer<String> listener) throws InterruptedException {
        return subscribe(channelName, (channel, message) -> listener.accept(message));
    }

    /** Registers {@code listener} on one channel and blocks until Redis confirmed it (at most the timeout). */
    Subscription subscribe(String channelName, PubSubListener listener) throws InterruptedException {
        Subscription subscription = subscribe(List.of(channelName), false, listener);
        try {
            awaitReady(subscription.ready());
        } catch (RuntimeException | InterruptedException e) {
            subscription.close();
            throw e;
        }
        return subscription;
    }

    /**
     * Registers {@code listener} on channels (or glob patterns) and sends SUBSCRIBE (PSUBSCRIBE) for those
     * not subscribed yet. Does not wait for Redis, except to open the pub/sub connection on first use;
     * the returned registration's {@link Subscription#ready()} completes on confirmation.
     *
     * @throws CoordisException     when the pub/sub connection cannot be opened
     * @throws InterruptedException when interrupted while it opens (it is closed when it opens later)
     */
    Subscription subscribe(Collection<String> names, boolean pattern, PubSubListener listener)
            throws InterruptedException {
        List<String> unique = List.copyOf(new LinkedHashSet<>(names));
        List<CompletableFuture<Void>> confirmations = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("connection to " + address + " is closed");
            }
            StatefulRedisPubSubConnection<String, String> conn = connection();
            Map<String, Entry> map = pattern ? patterns : channels;
            List<String> toSend = new ArrayList<>();
            List<CompletableFuture<Void>> sent = new ArrayList<>();
            for (String name : unique) {
                Entry entry = map.computeIfAbsent(name, n -> new Entry());
                entry.listeners.add(listener);
                CompletableFuture<Void> confirmed = entry.confirmed;
                if (confirmed == null || confirmed.isCompletedExceptionally()) {
                    confirmed = new CompletableFuture<>();
                    entry.confirmed = confirmed;
                    toSend.add(name);
                    sent.add(confirmed);
                }
                confirmations.add(confirmed);
            }
            if (!toSend.isEmpty()) {
                String[] args = toSend.toArray(String[]::new);
                RedisFuture<Void> reply = pattern ? conn.async().psubscribe(args) : conn.async().subscribe(args);
                reply.whenComplete((v, failure) -> {
                    if (failure != null) {
                        CoordisException e = RedisErrors.translate(failure, address);
                        sent.forEach(f -> f.completeExceptionally(e));
                    }
                });
            }
        }
        CompletableFuture<Void> ready = CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new));
        AtomicBoolean open = new AtomicBoolean(true);
        return new Subscription() {
            @Override
            public void close() {
                if (open.compareAndSet(true, false)) {
                    unsubscribe(unique, pattern, listener);
                }
            }

            @Override
            public CompletableFuture<Void> ready() {
                return ready;
            }
        };
    }

    private void awaitReady(CompletableFuture<Void> ready) throws InterruptedException {
        try {
            ready.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), address);
        } catch (TimeoutException e) {
            throw RedisErrors.translate(new TimeoutException(
                    "SUBSCRIBE not confirmed within " + timeout.toMillis() + " ms"), address);
        }
    }

    /**
     * Removes {@code listener}; names left without listeners are unsubscribed once their SUBSCRIBE was
     * confirmed. An unconfirmed one stays registered until its confirmation arrives, so that this
     * confirmation can never be taken for that of a later SUBSCRIBE of the same name.
     */
    private synchronized void unsubscribe(List<String> names, boolean pattern, PubSubListener listener) {
        Map<String, Entry> map = pattern ? patterns : channels;
        List<String> toSend = new ArrayList<>();
        for (String name : names) {
            Entry entry = map.get(name);
            if (entry == null || !entry.listeners.remove(listener)) {
                continue;
            }
            if (entry.listeners.isEmpty() && entry.confirmed.isDone()) {
                map.remove(name);
                toSend.add(name);
            }
        }
        if (!toSend.isEmpty() && !closed && connection != null && connection.isOpen()) {
            String[] args = toSend.toArray(String[]::new);
            if (pattern) {
                connection.async().punsubscribe(args);
            } else {
                connection.async().unsubscribe(args);
            }
        }
    }

    private synchronized void dropIfUnused(String name, boolean pattern) {
        Map<String, Entry> map = pattern ? patterns : channels;
        Entry entry = map.get(name);
        if (entry != null && entry.listeners.isEmpty() && entry.confirmed.isDone()) {
            map.remove(name);
            if (!closed && connection != null && connection.isOpen()) {
                if (pattern) {
                    connection.async().punsubscribe(name);
                } else {
                    connection.async().unsubscribe(name);
                }
            }
        }
    }

    /**
     * The pub/sub connection, opened on first use. Opening waits interruptibly: an interrupted caller leaves at
     * once, and a connection that opens after it left is closed, so none is left behind unused.
     */
    private StatefulRedisPubSubConnection<String, String> connection() throws InterruptedException {
        if (connection == null) {
            CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> opening;
            try {
                opening = connector.connectPubSubAsync();
            } catch (RuntimeException e) {
                throw RedisErrors.translate(e, address);
            }
            try {
                connection = attach(opening.get());
            } catch (InterruptedException e) {
                opening.thenAccept(StatefulRedisPubSubConnection::closeAsync);
                throw e;
            } catch (ExecutionException e) {
                throw RedisErrors.translate(e.getCause(), address);
            } catch (RuntimeException e) {
                throw RedisErrors.translate(e, address);
            }
        }
        return connection;
    }

    private StatefulRedisPubSubConnection<String, String> attach(StatefulRedisPubSubConnection<String, String> conn) {
        conn.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                deliver(channels.get(channel), channel, message);
            }

            @Override
            public void message(String pattern, String channel, String message) {
                deliver(patterns.get(pattern), channel, message);
            }

            @Override
            public void subscribed(String channel, long count) {
                confirm(channel, false);
            }

            @Override
            public void psubscribed(String pattern, long count) {
                confirm(pattern, true);
            }
        });
        conn.addListener(new RedisConnectionStateListener() {
            @Override
            public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
                interrupted();
                if (connector.isCluster()) {
                    // Lettuce reconnects to the same node, which may be gone for good after a failover
                    CompletableFuture.runAsync(() -> moveIfStillDown(conn),
                            CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS));
                }
            }
        });
        return conn;
    }

    /**
     * On a cluster, a pub/sub connection that is still down after the command timeout is replaced by one to
     * another node (any node hears every PUBLISH), and every channel and pattern is subscribed there; the
     * listeners hear a gap when Redis confirms. Retried every command timeout until it succeeds or the
     * old connection is back.
     */
    private void moveIfStillDown(StatefulRedisPubSubConnection<String, String> old) {
        StatefulRedisPubSubConnection<String, String> fresh;
        synchronized (this) {
            if (closed || connection != old || old.isOpen()) {
                return;
            }
            connector.topologyChanged();
            try {
                fresh = attach(connector.connectPubSub());
            } catch (RuntimeException e) {
                log.debug("pub/sub connection to {} still down, retrying on another node: {}", address, e.toString());
                CompletableFuture.runAsync(() -> moveIfStillDown(old),
                        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS));
                return;
            }
            connection = fresh;
            log.debug("pub/sub connection to {} moved to another node after a lost node", address);
            if (!channels.isEmpty()) {
                fresh.async().subscribe(channels.keySet().toArray(String[]::new));
            }
            if (!patterns.isEmpty()) {
                fresh.async().psubscribe(patterns.keySet().toArray(String[]::new));
            }
        }
        old.closeAsync();
    }

    /** The connection dropped: every registration will report a gap when Redis confirms it again. */
    private void interrupted() {
        log.debug("pub/sub connection to {} lost; channels are subscribed again on reconnect", address);
        channels.values().forEach(e -> e.interrupted.set(true));
        patterns.values().forEach(e -> e.interrupted.set(true));
    }

    private void confirm(String name, boolean pattern) {
        Entry entry = (pattern ? patterns : channels).get(name);
        if (entry == null) {
            return;
        }
        CompletableFuture<Void> confirmed = entry.confirmed;
        if (confirmed != null) {
            confirmed.complete(null);
        }
        if (entry.interrupted.compareAndSet(true, false)) {
            for (PubSubListener l : entry.listeners) {
                try {
                    l.gap();
                } catch (RuntimeException e) {
                    log.warn("a pub/sub listener on {} failed on a gap", address, e);
                }
            }
        }
        if (entry.listeners.isEmpty()) {
            // Closed before Redis confirmed: unsubscribe now, off the I/O thread (the monitor is not for it).
            CompletableFuture.runAsync(() -> dropIfUnused(name, pattern));
        }
    }

    private void deliver(Entry entry, String channel, String message) {
        if (entry == null) {
            return;
        }
        for (PubSubListener l : entry.listeners) {
            try {
                l.message(channel, message);
            } catch (RuntimeException e) {
                log.warn("a pub/sub listener on {} failed on a message from '{}'", address, channel, e);
            }
        }
    }

    /**
     * Closes the pub/sub connection. Closing waits for Lettuce's I/O thread, so it happens outside this
     * object's monitor: the I/O thread must never wait for a lock held by a thread that waits for it.
     */
    void close() {
        StatefulRedisPubSubConnection<String, String> toClose;
        java.util.Set<PubSubListener> listeners = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        synchronized (this) {
            closed = true;
            channels.values().forEach(e -> listeners.addAll(e.listeners));
            patterns.values().forEach(e -> listeners.addAll(e.listeners));
            channels.clear();
            patterns.clear();
            toClose = connection;
        }
        for (PubSubListener listener : listeners) {
            try {
                listener.closed();
            } catch (RuntimeException e) {
                log.warn("a pub/sub listener on {} failed when told the client closed", address, e);
            }
        }
        if (toClose != null) {
            try {
                toClose.closeAsync().get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // the connection is abandoned; the client's shutdown releases its resources
            }
        }
    }
}
