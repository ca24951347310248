package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.coordis.internal.Timer;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Channel and pattern listeners multiplexed over one pub/sub connection per node, opened on first use.
 * A channel (or pattern) is subscribed at Redis while at least one listener is registered on it.
 *
 * <p>A lost connection is replaced, not reconnected in place: a new connection is opened (at once, then with
 * growing, jittered pauses up to {@link #MAX_RETRY_PAUSE} while that fails), every channel and pattern is
 * subscribed on it, and the old one is closed. When Redis confirms a channel again, its listeners are told
 * through {@link PubSubListener#gap()} that messages may have been lost. Only the current connection
 * delivers ({@link PubSubConnectionListener}): a message or confirmation arriving on any other is ignored, so a
 * listener never hears a message twice, even when a connection attempt that was given up still reaches Redis.
 * (A connection reconnecting by itself keeps one identity across its sockets; over a slow link a reconnection
 * that outlasted its timeout could leave two sockets subscribed, and every message arrived twice.)
 * A registration counts as confirmed when Redis's own subscribe reply for the channel arrives.
 *
 * <p>On a Redis Cluster the connection goes to one node; classic PUBLISH reaches subscribers on every node,
 * so listeners hear messages published anywhere in the cluster. A replacement connection may go to another
 * node (the topology is re-read before each retry), which matters when the lost node is gone for good.
 */
final class Subscriptions {
    private static final Logger log = LoggerFactory.getLogger(Subscriptions.class);
    /** The longest pause between two attempts to replace a lost connection. */
    static final Duration MAX_RETRY_PAUSE = Duration.ofSeconds(1);
    private final String address;
    /** The node's connector, whose settings this one's own connector copies on first use. */
    private final Connector template;
    /** Connections that do not reconnect by themselves; opened on first use, shut down by {@link #close()}. */
    private Connector connector;
    private final Timer timer;
    private final Duration timeout;
    /** Read without locking by the I/O thread that delivers messages; changed under this object's monitor. */
    private final Listeners listeners;
    /** The current connection: the only one whose messages and confirmations count. Changed under the monitor. */
    private volatile StatefulRedisPubSubConnection<String, String> connection;
    /** The first connection while it opens; guarded by the monitor. */
    private CompletableFuture<Void> opening;
    /** The lost connection being replaced, so that one loss starts one replacement. */
    private StatefulRedisPubSubConnection<String, String> replacing;
    private boolean closed;

    /** SUBSCRIBE replies and retries run on {@code timer}; a SUBSCRIBE not confirmed within {@code timeout} fails. */
    Subscriptions(String address, Connector connector, Timer timer, Duration timeout) {
        this.address = address;
        this.template = connector;
        this.timer = timer;
        this.timeout = timeout;
        this.listeners = new Listeners(address);
    }

    /** Registers {@code listener} on one channel and blocks until Redis confirmed it (at most the timeout). */
    ChannelRegistration subscribe(String channelName, Consumer<String> listener) throws InterruptedException {
        return subscribe(channelName, (channel, message) -> listener.accept(message));
    }

    /** Registers {@code listener} on one channel and blocks until Redis confirmed it (at most the timeout). */
    ChannelRegistration subscribe(String channelName, PubSubListener listener) throws InterruptedException {
        ChannelRegistration subscription = subscribe(List.of(channelName), false, listener);
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
     * the returned registration's {@link ChannelRegistration#ready()} completes on confirmation.
     *
     * @throws CoordisException     when the pub/sub connection cannot be opened
     * @throws InterruptedException when interrupted while it opens (nothing stays registered; the connection opens
     *                              for later use)
     */
    ChannelRegistration subscribe(Collection<String> names, boolean pattern, PubSubListener listener)
            throws InterruptedException {
        Registered r = register(names, pattern, listener);
        if (r.opening() != null) {
            try {
                r.opening().get();
            } catch (InterruptedException e) {
                r.subscription().close();
                throw e;
            } catch (ExecutionException e) {
                r.subscription().close();
                throw RedisErrors.translate(e.getCause(), address);
            }
        }
        return r.subscription();
    }

    /**
     * Like {@link #subscribe(Collection, boolean, PubSubListener)}, and never blocks, not even to open the connection
     * on first use: a connection that cannot be opened fails {@link ChannelRegistration#ready()}. For callers on an I/O
     * thread or the client's timer: this object's monitor is never held while anything is waited for.
     */
    ChannelRegistration subscribeLater(Collection<String> names, boolean pattern, PubSubListener listener) {
        return register(names, pattern, listener).subscription();
    }

    /** A registration, and the opening of the connection when this registration started it or must wait for it. */
    private record Registered(ChannelRegistration subscription, CompletableFuture<?> opening) {
    }

    private Registered register(Collection<String> names, boolean pattern, PubSubListener listener) {
        List<String> unique = List.copyOf(new LinkedHashSet<>(names));
        Listeners.Added added;
        CompletableFuture<?> waitFor = null;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("connection to " + address + " is closed");
            }
            added = listeners.add(unique, pattern, listener);
            StatefulRedisPubSubConnection<String, String> conn = connection;
            if (conn == null) {
                waitFor = open(); // the opened connection subscribes every registered name
            } else if (!added.toSend().isEmpty() && conn.isOpen()) {
                send(conn, added.toSend(), pattern, added.pending());
            }
            // else the connection was lost: its replacement subscribes every registered name
        }
        ChannelRegistration subscription = ChannelRegistration.of(added.ready(),
                () -> unsubscribe(unique, pattern, listener));
        return new Registered(subscription, waitFor);
    }

    /**
     * Opens the pub/sub connection on first use, without waiting: once open it becomes the current connection and
     * subscribes every registered name; when it cannot be opened, every registration waiting for a confirmation
     * fails with the cause, and the next registration tries again. Under the monitor; one opening at a time.
     */
    private CompletableFuture<?> open() {
        if (opening != null) {
            return opening;
        }
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> started;
        try {
            if (connector == null) {
                connector = template.withoutAutoReconnect();
            }
            started = connector.connectPubSubAsync();
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        opening = done;
        started.whenCompleteAsync((opened, failure) -> {
            synchronized (this) {
                opening = null;
                if (failure == null && !closed) {
                    connection = attach(opened);
                    resubscribe(opened, false);
                    resubscribe(opened, true);
                    replaceIfLost(opened);
                } else if (failure != null) {
                    listeners.failPending(RedisErrors.translate(failure, address));
                }
            }
            if (failure == null && closed) {
                opened.closeAsync();
            }
            if (failure == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(failure);
            }
        });
        return done;
    }

    /**
     * Sends SUBSCRIBE (PSUBSCRIBE) for {@code names} on {@code conn}. When Redis refuses (an error reply such as
     * NOPERM), {@code pending} fails with it. Any other failure (not connected, no reply in time) means the
     * connection cannot be trusted to hold the subscriptions: it is closed and replaced, and the replacement
     * subscribes every registered name and confirms {@code pending}. A lost connection reports no disconnection
     * when it died before its listeners were attached, so this is also how such a connection is found.
     */
    private void send(StatefulRedisPubSubConnection<String, String> conn, List<String> names, boolean pattern,
                      List<CompletableFuture<Void>> pending) {
        String[] args = names.toArray(String[]::new);
        RedisFuture<Void> reply = pattern ? conn.async().psubscribe(args) : conn.async().subscribe(args);
        timer.failAfter(reply.toCompletableFuture(), timeout.toNanos()).whenComplete((v, failure) -> {
            if (failure == null || connection != conn) {
                return;
            }
            if (failure instanceof RedisCommandExecutionException) {
                CoordisException e = RedisErrors.translate(failure, address);
                pending.forEach(f -> f.completeExceptionally(e));
                return;
            }
            log.debug("pub/sub connection to {} failed to subscribe ({}); replacing it", address, failure.toString());
            timer.deliver(() -> lost(conn));
            conn.closeAsync();
        });
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
        sendUnsubscribe(listeners.remove(names, pattern, listener), pattern);
    }

    private synchronized void dropIfUnused(String name, boolean pattern) {
        sendUnsubscribe(listeners.remove(List.of(name), pattern, null), pattern);
    }

    private void sendUnsubscribe(List<String> names, boolean pattern) {
        if (!names.isEmpty() && !closed && connection != null && connection.isOpen()) {
            String[] args = names.toArray(String[]::new);
            if (pattern) {
                connection.async().punsubscribe(args);
            } else {
                connection.async().unsubscribe(args);
            }
        }
    }

    private StatefulRedisPubSubConnection<String, String> attach(StatefulRedisPubSubConnection<String, String> conn) {
        return PubSubConnectionListener.attach(this, listeners, timer, conn);
    }

    /** The current connection: the only one whose messages and confirmations count. */
    StatefulRedisPubSubConnection<String, String> current() {
        return connection;
    }

    /** A connection that closed before its listeners were attached is never reported lost: replace it now. */
    private void replaceIfLost(StatefulRedisPubSubConnection<String, String> conn) {
        if (!conn.isOpen()) {
            timer.deliver(() -> lost(conn));
        }
    }

    /**
     * {@code conn} dropped: if it is the current connection, every registration will report a gap when Redis
     * confirms it again, and a replacement is opened. Once per lost connection.
     */
    void lost(StatefulRedisPubSubConnection<String, String> conn) {
        synchronized (this) {
            if (closed || connection != conn || replacing == conn) {
                return;
            }
            replacing = conn;
        }
        log.debug("pub/sub connection to {} lost; channels are subscribed again on reconnect", address);
        listeners.interrupted();
        replace(conn, 0);
    }

    /**
     * Opens a connection to take the place of {@code lost}, unless the client closed. Attempt 0 starts at once;
     * each failed attempt schedules the next after a jittered pause that doubles up to {@link #MAX_RETRY_PAUSE}.
     * On a cluster the topology is re-read before each retry, so that a node gone for good is left.
     */
    private void replace(StatefulRedisPubSubConnection<String, String> lost, int attempt) {
        Connector own;
        synchronized (this) {
            if (closed || connection != lost) {
                return;
            }
            own = connector;
        }
        if (attempt > 0 && own.isCluster()) {
            own.topologyChanged();
        }
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> opening;
        try {
            opening = own.connectPubSubAsync();
        } catch (RuntimeException e) {
            retry(lost, attempt, e);
            return;
        }
        opening.whenCompleteAsync((fresh, failure) -> {
            if (failure != null) {
                retry(lost, attempt, failure);
            } else {
                adopt(lost, fresh);
            }
        });
    }

    private void retry(StatefulRedisPubSubConnection<String, String> lost, int attempt, Throwable cause) {
        long pause = retryPause(attempt + 1).toNanos();
        log.debug("pub/sub connection to {} still lost (attempt {}): {}", address, attempt + 1, cause.toString());
        // off the timer's thread, on the client's callback executor: replacing takes this object's monitor
        timer.after(pause, () -> timer.deliver(() -> replace(lost, attempt + 1)));
    }

    /** The pause before retry {@code attempt} (from 1): 10 ms doubling up to {@link #MAX_RETRY_PAUSE}, half of it random. */
    static Duration retryPause(int attempt) {
        long ceiling = Math.min(MAX_RETRY_PAUSE.toMillis(), 10L << Math.min(attempt - 1, 20));
        return Duration.ofMillis(ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1));
    }

    /** Makes {@code fresh} the current connection in place of {@code lost}, subscribes everything there, closes {@code lost}. */
    private void adopt(StatefulRedisPubSubConnection<String, String> lost, StatefulRedisPubSubConnection<String, String> fresh) {
        synchronized (this) {
            if (closed || connection != lost) {
                fresh.closeAsync();
                return;
            }
            connection = attach(fresh);
            resubscribe(fresh, false);
            resubscribe(fresh, true);
            replaceIfLost(fresh);
        }
        lost.closeAsync();
        log.debug("pub/sub connection to {} replaced after it was lost", address);
    }

    private void resubscribe(StatefulRedisPubSubConnection<String, String> conn, boolean pattern) {
        Listeners.Added again = listeners.again(pattern);
        if (!again.toSend().isEmpty()) {
            send(conn, again.toSend(), pattern, again.pending());
        }
    }

    /** Redis confirmed {@code name} on the current connection. */
    void confirm(String name, boolean pattern) {
        if (listeners.confirm(name, pattern)) {
            // Closed before Redis confirmed: unsubscribe now, off the I/O thread (the monitor is not for it).
            timer.deliver(() -> dropIfUnused(name, pattern));
        }
    }

    /**
     * Closes the pub/sub connection. Closing waits for Lettuce's I/O thread, so it happens outside this
     * object's monitor: the I/O thread must never wait for a lock held by a thread that waits for it.
     */
    void close() {
        StatefulRedisPubSubConnection<String, String> toClose;
        Connector own;
        Set<PubSubListener> registered;
        synchronized (this) {
            closed = true;
            registered = listeners.clear();
            toClose = connection;
            own = connector;
        }
        listeners.closed(registered);
        if (toClose != null) {
            try {
                toClose.closeAsync().get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // the connection is abandoned; the client's shutdown below releases its resources
            }
        }
        if (own != null) {
            own.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }
}
