package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.coordis.internal.ClosedByClientException;
import io.coordis.internal.Timer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SetArgs;
import io.lettuce.core.codec.StringCodec;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One Redis node (or one Sentinel-managed master, or one Redis Cluster) as the primitives see it: scripts and
 * a few commands on one multiplexed {@link Connection}, writes that wait for replicas on connections of their own
 * ({@link ReplicatedWrite}), pub/sub on a lazily opened connection of its own, and
 * binary list commands for queues ({@link #lists()}); the administrative commands are in {@link #admin()}.
 * Lettuce stays inside this package. The primitives see it as a {@link Node}. Thread-safe.
 *
 * <p>On a cluster, each command goes to the master of its first key's slot (keyless ones to any node),
 * {@code MOVED}/{@code ASK} redirects are followed and the topology is refreshed on redirects, on persistent
 * reconnects and periodically; {@code EVALSHA} falls back to {@code EVAL} on the node that answered
 * {@code NOSCRIPT}. A script or command whose keys lie in different slots fails with a
 * {@link io.coordis.CommandRejectedException} naming CROSSSLOT, before anything is sent.
 *
 * <p>Every command has the command timeout as its deadline. Results leave as plain Java values: {@code Long},
 * {@code String}, {@code List<Object>} or {@code null}; every failure as a {@link CoordisException} naming this
 * node.
 */
public final class RedisNode implements Node, AutoCloseable {
    private final String address;
    private final Duration commandTimeout;
    private final Timer timer;
    /** The client's own resources when it was opened without shared ones; {@code null} otherwise. */
    private final RedisResources ownResources;
    private final Connector connector;
    private final Connection<String, String> connection;
    private final ReplicatedWrite.Pool<String, String> replicatedWrites;
    private final AdminCommands admin;
    private final Subscriptions subscriptions;
    /** Binary-safe list commands (queues), opened on first use. */
    private ListCommands lists;
    private volatile boolean closed;

    private RedisNode(Connector connector, Duration commandTimeout, Timer timer, RedisResources ownResources) {
        this.address = connector.address();
        this.commandTimeout = commandTimeout;
        this.timer = timer;
        this.ownResources = ownResources;
        this.connector = connector;
        this.connection = Connection.shared(address, connector, StringCodec.UTF8, timer, commandTimeout);
        this.replicatedWrites = new ReplicatedWrite.Pool<>(address, connector, StringCodec.UTF8, timer, commandTimeout,
                k -> k, k -> k.toArray(String[]::new), v -> v.toArray(String[]::new));
        this.admin = new AdminCommands(connection);
        this.subscriptions = new Subscriptions(address, connector, timer, commandTimeout);
    }

    /**
     * Connects to {@code uri}, waiting at most twice {@code commandTimeout} for the connection and the handshake;
     * otherwise like {@link #open}.
     *
     * @throws IllegalArgumentException when the URL is malformed or the TLS files cannot be used
     * @throws CoordisException         when the node is down or refuses the credentials
     */
    public static RedisNode connect(String uri, Duration commandTimeout, TlsSettings tls, RedisResources shared,
                                    Timer timer) {
        RedisNode node = open(uri, commandTimeout, tls, shared, timer);
        try {
            node.awaitUninterruptibly(node.connection.opening(), commandTimeout.multipliedBy(2));
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * Opens {@code uri} without waiting for the connection: it opens in the background, and commands fail (naming
     * this node) until it is up. For nodes of which a minority may be down when the client starts (Redlock).
     * {@code tls} applies to {@code rediss://} URLs (every connection of the node: commands, lists, pub/sub,
     * Sentinel, cluster nodes); the node runs on {@code shared} resources (or own ones if null) and keeps its
     * deadlines on {@code timer}, which its owner closes after the node.
     *
     * @throws IllegalArgumentException when the URL is malformed or the TLS files cannot be used
     */
    public static RedisNode open(String uri, Duration commandTimeout, TlsSettings tls, RedisResources shared,
                                 Timer timer) {
        Objects.requireNonNull(tls, "TLS settings must not be null");
        RedisResources own = shared == null ? new RedisResources() : null;
        Connector connector = Connector.open(uri, commandTimeout, tls, (shared != null ? shared : own).lettuce,
                timer.ticker());
        return new RedisNode(connector, commandTimeout, timer, own);
    }

    /** Whether this is a Redis Cluster (several masters, each owning some hash slots) rather than one server. */
    public boolean isCluster() {
        return connector.isCluster();
    }

    /** Completes when the current connection is open (or failed to open); never fails. Does not block. */
    public CompletableFuture<Void> settled() {
        return connection.settled();
    }

    /** {@code host:port} of this node, for messages. */
    public String address() {
        return address;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** Runs {@code script} (see {@link ScriptRunner}). Does not block. */
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        try {
            connector.requireOneSlot(keys, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        String[] k = keys.toArray(String[]::new);
        String[] a = args.toArray(String[]::new);
        return connection.send(c -> ScriptRunner.run(c, script, k, a));
    }

    /** {@code SET key value}. */
    public CompletableFuture<String> set(String key, String value) {
        return connection.send(c -> c.set(key, value));
    }

    /** {@code SET key value KEEPTTL}: a key that expires keeps its expiry. */
    public CompletableFuture<String> setKeepingTtl(String key, String value) {
        return connection.send(c -> c.set(key, value, SetArgs.Builder.keepttl()));
    }

    /** {@code GET key}. */
    public CompletableFuture<String> get(String key) {
        return connection.send(c -> c.get(key));
    }

    /** {@code DEL key}, answering how many keys were removed. */
    public CompletableFuture<Long> del(String key) {
        return connection.send(c -> c.del(key));
    }

    /**
     * A connection of its own for a write that replicas must acknowledge and its {@code WAIT} (see
     * {@link ReplicatedWrite}), lent from this node's pool; close it once done. Commands on the shared connection
     * never wait behind the {@code WAIT}. Does not block; once the node is closed, its commands fail.
     */
    public ReplicatedWrite<String> replicatedWrite() {
        return replicatedWrites.lend();
    }

    /**
     * The node that serves {@code key}, as {@code host:port}: on a cluster the master of its slot in the current
     * topology (this node's address when none is known), elsewhere this node's address. For messages.
     */
    public String addressFor(String key) {
        return connection.addressFor(key);
    }

    /** {@code PUBLISH channel message}, answering how many subscribers received it. */
    public CompletableFuture<Long> publish(String channel, String message) {
        return connection.send(c -> c.publish(channel, message));
    }

    /**
     * On a cluster: publishes {@code message} to one subscriber of the channels matching {@code pattern}, number
     * {@code pick} modulo their count, answering how many received it (see {@link ClusterPublish}). Does not block.
     *
     * @throws IllegalStateException when this is not a cluster (use a script there)
     */
    public CompletableFuture<Long> publishToOneSubscriber(String pattern, long pick, String message) {
        if (!isCluster()) {
            throw new IllegalStateException("publishToOneSubscriber is for Redis Cluster; " + address + " is not one");
        }
        return ClusterPublish.toOne(connection, connector, address, pattern, pick, message);
    }

    /**
     * {@code sent} (a future this node returned) limited to {@code timeout} (up to a tick more): past it, the
     * result fails with a {@link io.coordis.NodeUnavailableException} naming this node, and the connection is
     * replaced as after any timeout. Does not block.
     */
    public <T> CompletableFuture<T> within(CompletableFuture<T> sent, Duration timeout) {
        return connection.within(sent, timeout);
    }

    /**
     * Treats {@code sent} (a future this node returned, still unanswered) as timed out, for callers that keep
     * their own deadline instead of {@link #within}: the connection it went out on is replaced as after any
     * timeout, since a late reply could otherwise be taken for the answer to a later command. Does not block.
     */
    public void timedOut(CompletableFuture<?> sent) {
        connection.timedOut(sent);
    }

    /** The failure that reports no reply within {@code timeout}, naming this node. */
    public CoordisException timeoutFailure(Duration timeout) {
        return connection.timeoutFailure(timeout);
    }

    /**
     * Subscribes {@code listener} to {@code channel} on this node's shared pub/sub connection and blocks
     * until Redis confirmed the subscription (at most the command timeout). Messages are delivered on a
     * Lettuce I/O thread: listeners must be quick and must not block.
     */
    public ChannelRegistration subscribe(String channel, Consumer<String> listener) throws InterruptedException {
        return subscriptions.subscribe(channel, listener);
    }

    /**
     * Like {@link #subscribe(String, Consumer)}, with a listener that also hears {@link PubSubListener#gap()}
     * and {@link PubSubListener#closed()} (this node closed: a waiter can stop waiting).
     */
    public ChannelRegistration subscribe(String channel, PubSubListener listener) throws InterruptedException {
        return subscriptions.subscribe(channel, listener);
    }

    /**
     * Registers {@code listener} on {@code names} (channels, or glob patterns for PSUBSCRIBE when
     * {@code patterns}) on this node's shared pub/sub connection, without waiting for Redis: the
     * registration's {@link ChannelRegistration#ready()} completes when Redis confirmed every name, or fails
     * naming this node. Only the first use, which opens the connection, blocks (at most the command
     * timeout). After a lost connection the names are subscribed again and the listener hears
     * {@link PubSubListener#gap()}. Messages arrive on a Lettuce I/O thread.
     *
     * @throws CoordisException     when the pub/sub connection cannot be opened
     * @throws InterruptedException when interrupted while it opens (nothing stays registered)
     */
    public ChannelRegistration subscribe(Collection<String> names, boolean patterns, PubSubListener listener)
            throws InterruptedException {
        return subscriptions.subscribe(names, patterns, listener);
    }

    /**
     * Like {@link #subscribe(Collection, boolean, PubSubListener)}, and never blocks, not even to open the pub/sub
     * connection on first use (its failure then fails {@link ChannelRegistration#ready()}): for steps that run on a
     * reply's I/O thread or on the client's timer.
     */
    public ChannelRegistration subscribeLater(Collection<String> names, boolean patterns, PubSubListener listener) {
        return subscriptions.subscribeLater(names, patterns, listener);
    }

    /**
     * Waits for {@code future} at most {@code timeout}, turning a timeout or failure into a
     * {@link CoordisException} that names this node.
     */
    public <T> T await(CompletionStage<T> future, Duration timeout) throws InterruptedException {
        return connection.await(future, timeout);
    }

    /**
     * Like {@link #await} but keeps waiting through interrupts, restoring the interrupt flag afterwards; the
     * deadline is read on the client's timer.
     */
    public <T> T awaitUninterruptibly(CompletionStage<T> future, Duration timeout) {
        return connection.awaitUninterruptibly(future, timeout);
    }

    /** {@code INFO section} as a map of its fields (see {@link AdminCommands#info}). */
    @Override
    public CompletableFuture<Map<String, String>> info(String section) {
        return admin.info(section);
    }

    /** The administrative commands on this node (for the doctor and the inspector). */
    public AdminCommands admin() {
        return admin;
    }

    /**
     * Binary-safe list commands on this node (queues), with their own connections: opened on first use,
     * closed with this node.
     */
    public synchronized ListCommands lists() {
        if (closed) {
            throw new ClosedByClientException(address);
        }
        if (lists == null) {
            lists = new ListCommands(address, connector, timer, commandTimeout, admin);
        }
        return lists;
    }

    /** Translates any failure into the Coordis exception family, naming this node. */
    public CoordisException translate(Throwable failure) {
        return RedisErrors.translate(failure, address);
    }

    /**
     * Closes every connection of this node, waiting at most a few seconds. Commands fail from the start, so that
     * a waiter woken by the close (see {@link PubSubListener#closed()}) cannot send another and wait again.
     */
    @Override
    public void close() {
        closed = true;
        connection.drop();
        replicatedWrites.close();
        subscriptions.close();
        synchronized (this) {
            if (lists != null) {
                lists.close();
            }
        }
        // closed by now (or given up on after 2 s): the client's shutdown below would otherwise close it a second time
        connection.close();
        connector.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        if (ownResources != null) {
            ownResources.close();
        }
    }

    @Override
    public String toString() {
        return "RedisNode[" + address + "]";
    }
}
