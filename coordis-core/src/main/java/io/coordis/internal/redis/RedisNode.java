package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis node (or one Sentinel-managed master, or one Redis Cluster): a multiplexed command connection, a
 * lazily opened pub/sub connection, and the script runner. The only class family that sees Lettuce.
 * Thread-safe.
 *
 * <p>On a cluster, each command goes to the master of its first key's slot (keyless ones to any node),
 * {@code MOVED}/{@code ASK} redirects are followed and the topology is refreshed on redirects, on persistent
 * reconnects and periodically; {@code EVALSHA} falls back to {@code EVAL} on the node that answered
 * {@code NOSCRIPT}. A script or command whose keys lie in different slots fails with a
 * {@link io.coordis.CommandRejectedException} naming CROSSSLOT, before anything is sent.
 *
 * <p>Every result leaves as plain Java values: {@code Long}, {@code String}, {@code List<Object>} or
 * {@code null}; every failure as a {@link CoordisException} naming this node.
 */
public final class RedisNode implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisNode.class);
    private final String address;
    private final Duration commandTimeout;
    /** The client's own resources when it was opened without shared ones; {@code null} otherwise. */
    private final RedisResources ownResources;
    private final Connector connector;
    /** The command connection; replaced after a timeout (see {@link #replace}). */
    private final AtomicReference<CompletableFuture<StatefulConnection<String, String>>> connection;
    private final Subscriptions subscriptions;
    /** Binary-safe list commands (queues), opened on first use. */
    private ListCommands lists;
    private volatile boolean closed;

    private RedisNode(String address, Duration commandTimeout, RedisResources ownResources, Connector connector) {
        this.address = address;
        this.commandTimeout = commandTimeout;
        this.ownResources = ownResources;
        this.connector = connector;
        this.connection = new AtomicReference<>(connector.connectAsync(StringCodec.UTF8));
        this.subscriptions = new Subscriptions(address, connector, commandTimeout);
    }

    /**
     * Connects to {@code uri}, waiting at most {@code commandTimeout} for the connection and the handshake.
     *
     * @throws IllegalArgumentException when the URL is malformed
     * @throws CoordisException         when the node is down or refuses the credentials
     */
    public static RedisNode connect(String uri, Duration commandTimeout) {
        return connect(uri, commandTimeout, null);
    }

    /**
     * Like {@link #connect(String, Duration)}; for {@code rediss://} URLs, {@code trustedCertificates}
     * (a PEM file of CA certificates, may be {@code null}) replaces the JVM's default trust store.
     */
    public static RedisNode connect(String uri, Duration commandTimeout, java.nio.file.Path trustedCertificates) {
        return connect(uri, commandTimeout, trustedCertificates, null);
    }

    /** Like {@link #connect(String, Duration, java.nio.file.Path)} on {@code shared} resources (or own ones if null). */
    public static RedisNode connect(String uri, Duration commandTimeout, java.nio.file.Path trustedCertificates,
                                    RedisResources shared) {
        return connect(uri, commandTimeout, trusting(trustedCertificates), shared);
    }

    /**
     * Like {@link #connect(String, Duration)} with the TLS settings {@code tls} for {@code rediss://} URLs, on
     * {@code shared} resources (or own ones if null).
     *
     * @throws IllegalArgumentException when the URL is malformed or the TLS files cannot be used
     */
    public static RedisNode connect(String uri, Duration commandTimeout, TlsSettings tls, RedisResources shared) {
        RedisNode node = open(uri, commandTimeout, tls, shared);
        try {
            node.awaitUninterruptibly(node.connection.get(), commandTimeout.multipliedBy(2));
            return node;
        } catch (RuntimeException e) {
            node.close();
            throw e;
        }
    }

    /**
     * Like {@link #connect(String, Duration, java.nio.file.Path)} but does not wait for the connection:
     * it opens in the background, and commands fail (naming this node) until it is up. For nodes of
     * which a minority may be down when the client starts (Redlock).
     *
     * @throws IllegalArgumentException when the URL is malformed
     */
    public static RedisNode open(String uri, Duration commandTimeout, java.nio.file.Path trustedCertificates) {
        return open(uri, commandTimeout, trustedCertificates, null);
    }

    /** Like {@link #open(String, Duration, java.nio.file.Path)} on {@code shared} resources (or own ones if null). */
    public static RedisNode open(String uri, Duration commandTimeout, java.nio.file.Path trustedCertificates,
                                 RedisResources shared) {
        return open(uri, commandTimeout, trusting(trustedCertificates), shared);
    }

    private static TlsSettings trusting(java.nio.file.Path trustedCertificates) {
        return trustedCertificates == null ? TlsSettings.defaults() : TlsSettings.defaults().trusting(trustedCertificates);
    }

    /**
     * Like {@link #open(String, Duration, java.nio.file.Path)} with the TLS settings {@code tls} for
     * {@code rediss://} URLs (every connection of the node: commands, lists, pub/sub, Sentinel, cluster nodes),
     * on {@code shared} resources (or own ones if null).
     *
     * @throws IllegalArgumentException when the URL is malformed or the TLS files cannot be used
     */
    public static RedisNode open(String uri, Duration commandTimeout, TlsSettings tls, RedisResources shared) {
        java.util.Objects.requireNonNull(tls, "TLS settings must not be null");
        boolean cluster = Uris.isCluster(uri);
        List<RedisURI> seeds = cluster ? Uris.parseCluster(uri, commandTimeout) : List.of(Uris.parse(uri, commandTimeout));
        seeds.forEach(tls::apply);
        SslOptions sslOptions = tls.sslOptions(commandTimeout);
        String address = cluster ? Uris.clusterAddress(seeds) : Uris.address(seeds.get(0));
        RedisResources own = shared == null ? new RedisResources() : null;
        io.lettuce.core.resource.ClientResources resources = (shared != null ? shared : own).lettuce;
        ClientOptions options = ClientOptions.builder()
                .protocolVersion(ProtocolVersion.RESP2)
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .sslOptions(sslOptions)
                .build();
        Connector connector;
        if (cluster) {
            RedisClusterClient client = RedisClusterClient.create(resources, seeds);
            client.setOptions(Connector.clusterOptions(options));
            connector = Connector.cluster(client, seeds);
        } else {
            RedisClient client = RedisClient.create(resources, seeds.get(0));
            client.setOptions(options);
            connector = Connector.standalone(client, seeds.get(0));
        }
        return new RedisNode(address, commandTimeout, own, connector);
    }

    /** Whether this is a Redis Cluster (several masters, each owning some hash slots) rather than one server. */
    public boolean isCluster() {
        return connector.isCluster();
    }

    /** Completes when the current connection is open (or failed to open); never fails. Does not block. */
    public CompletableFuture<Void> settled() {
        return connection.get().handle((c, f) -> null);
    }

    /** {@code host:port} of this node, for messages. */
    public String address() {
        return address;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Runs {@code script} with EVALSHA, re-sending the source with EVAL when the server answers NOSCRIPT
     * (after a restart or {@code SCRIPT FLUSH}). Does not block. Scripts run here return arrays
     * (Lua tables), which arrive as {@code List<Object>}.
     */
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        try {
            connector.requireOneSlot(keys, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        String[] k = keys.toArray(String[]::new);
        String[] a = args.toArray(String[]::new);
        return send(c -> {
            CompletableFuture<Object> sha = c.<Object>evalsha(script.sha(), ScriptOutputType.MULTI, k, a).toCompletableFuture();
            // one stage: the answer passes on, and only NOSCRIPT sends the source with EVAL
            return sha.exceptionallyCompose(failure ->
                    RedisErrors.isNoScript(failure) ? c.<Object>eval(script.source(), ScriptOutputType.MULTI, k, a)
                            : CompletableFuture.failedFuture(failure));
        });
    }

    /** {@code SCRIPT LOAD source}, answering the SHA the server computed. */
    public CompletableFuture<String> scriptLoad(LuaScript script) {
        return send(c -> c.scriptLoad(script.source()));
    }

    /** {@code INFO section} as a map of its {@code field:value} lines. */
    public CompletableFuture<java.util.Map<String, String>> info(String section) {
        return send(c -> c.info(section)).thenApply(RedisNode::parseInfo);
    }

    /** {@code CONFIG GET pattern...} as a map of parameter to value. */
    public CompletableFuture<java.util.Map<String, String>> configGet(String... patterns) {
        return send(c -> c.configGet(patterns));
    }

    /** {@code ACL WHOAMI}: the user this connection authenticated as. */
    public CompletableFuture<String> aclWhoami() {
        return send(c -> c.aclWhoami());
    }

    /** {@code ACL GETUSER user}: the user's flags, rules and patterns as Redis returns them (a flat list). */
    public CompletableFuture<List<Object>> aclGetuser(String user) {
        return send(c -> c.aclGetuser(user));
    }

    /** {@code ACL CAT category}: the commands (and, from Redis 7, subcommands as {@code cmd|sub}) in it. */
    public CompletableFuture<List<String>> aclCat(String category) {
        return send(c -> c.dispatch(io.lettuce.core.protocol.CommandType.ACL,
                new io.lettuce.core.output.ValueListOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8).add("CAT").add(category)));
    }

    /** {@code TIME}, in microseconds since the epoch on the server's clock. */
    public CompletableFuture<Long> timeMicros() {
        return send(c -> c.time()).thenApply(t -> Long.parseLong(t.get(0)) * 1_000_000L + Long.parseLong(t.get(1)));
    }

    static java.util.Map<String, String> parseInfo(String text) {
        java.util.Map<String, String> fields = new java.util.HashMap<>();
        for (String line : text.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }

    /** {@code SET key value}. */
    public CompletableFuture<String> set(String key, String value) {
        return send(c -> c.set(key, value));
    }

    /**
     * {@code sent} (a future this node returned) limited to {@code timeout} (up to {@link io.coordis.internal.Wheel#TICK_MILLIS} ms more): past it, the result fails
     * with a {@link io.coordis.NodeUnavailableException} naming this node, and the connection is
     * replaced as after any timeout. Does not block.
     */
    public <T> CompletableFuture<T> within(CompletableFuture<T> sent, Duration timeout) {
        CompletableFuture<T> limited = new CompletableFuture<>();
        sent.whenComplete((v, f) -> {
            if (f == null) {
                limited.complete(v);
            } else {
                limited.completeExceptionally(RedisErrors.unwrap(f));
            }
        });
        // a deadline on the coarse wheel (up to a tick late), cancelled when the reply comes first
        return io.coordis.internal.Wheel.failAfter(limited, Math.max(1, timeout.toNanos())).handle((v, f) -> {
            if (f == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = RedisErrors.unwrap(f);
            if (cause instanceof TimeoutException) {
                timedOut(sent);
                cause = timeoutFailure(timeout);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(x -> x);
    }

    /**
     * Treats {@code sent} (a future this node returned, still unanswered) as timed out, for callers that keep
     * their own deadline instead of {@link #within}: the connection it went out on is replaced as after any
     * timeout, since a late reply could otherwise be taken for the answer to a later command. Does not block.
     */
    public void timedOut(CompletableFuture<?> sent) {
        connector.topologyChanged();
        if (sent instanceof Sent<?> s && s.connectedAtSend) {
            replaceAfterTimeout(s.via);
        }
    }

    /** The failure that reports no reply within {@code timeout}, naming this node. */
    public CoordisException timeoutFailure(Duration timeout) {
        return RedisErrors.translate(new TimeoutException("no reply within " + timeout.toMillis() + " ms"), address);
    }

    /** {@code PUBLISH channel message}, answering how many subscribers received it. */
    public CompletableFuture<Long> publish(String channel, String message) {
        return send(c -> c.publish(channel, message));
    }

    /**
     * On a cluster: lists the channels matching {@code pattern} that have subscribers on each reachable node
     * (masters and replicas; {@code PUBSUB CHANNELS} only sees the node it runs on), picks number
     * {@code pick} modulo their count in a stable order, and publishes {@code message} to it on the node
     * where it was found, answering that node's receiver count (0 when no channel matched, or when the
     * chosen subscriber left in between). Nodes that do not answer within the command timeout are skipped:
     * their subscribers are not candidates. Does not block.
     *
     * @throws IllegalStateException when this is not a cluster (use a script there)
     */
    public CompletableFuture<Long> publishToOneSubscriber(String pattern, long pick, String message) {
        if (!isCluster()) {
            throw new IllegalStateException("publishToOneSubscriber is for Redis Cluster; " + address + " is not one");
        }
        return current().thenCompose(c -> {
            StatefulRedisClusterConnection<String, String> cluster = (StatefulRedisClusterConnection<String, String>) c;
            List<RedisClusterNode> nodes = cluster.getPartitions().stream()
                    .filter(n -> !n.is(RedisClusterNode.NodeFlag.FAIL) && !n.is(RedisClusterNode.NodeFlag.NOADDR))
                    .sorted(java.util.Comparator.comparing(RedisClusterNode::getNodeId))
                    .toList();
            List<CompletableFuture<List<String>>> listed = new java.util.ArrayList<>();
            for (RedisClusterNode n : nodes) {
                CompletableFuture<List<String>> channels = cluster.getConnectionAsync(n.getNodeId())
                        .thenCompose(nc -> nc.async().pubsubChannels(pattern))
                        .toCompletableFuture()
                        .completeOnTimeout(List.of(), commandTimeout.toNanos(), TimeUnit.NANOSECONDS)
                        .exceptionally(f -> List.of());
                listed.add(channels);
            }
            return CompletableFuture.allOf(listed.toArray(CompletableFuture[]::new)).thenCompose(done -> {
                List<java.util.Map.Entry<String, String>> candidates = new java.util.ArrayList<>();
                for (int i = 0; i < nodes.size(); i++) {
                    List<String> channels = new java.util.ArrayList<>(listed.get(i).join());
                    java.util.Collections.sort(channels);
                    for (String ch : channels) {
                        candidates.add(java.util.Map.entry(nodes.get(i).getNodeId(), ch));
                    }
                }
                if (candidates.isEmpty()) {
                    return CompletableFuture.completedFuture(0L);
                }
                java.util.Map.Entry<String, String> chosen = candidates.get((int) Math.floorMod(pick, (long) candidates.size()));
                return cluster.getConnectionAsync(chosen.getKey())
                        .thenCompose(nc -> nc.async().publish(chosen.getValue(), message));
            });
        }).handle((v, f) -> {
            if (f != null) {
                throw RedisErrors.translate(f, address);
            }
            return v;
        });
    }

    /**
     * Subscribes {@code listener} to {@code channel} on this node's shared pub/sub connection and blocks
     * until Redis confirmed the subscription (at most the command timeout). Messages are delivered on a
     * Lettuce I/O thread: listeners must be quick and must not block.
     */
    public Subscription subscribe(String channel, Consumer<String> listener) throws InterruptedException {
        return subscriptions.subscribe(channel, listener);
    }

    /**
     * Like {@link #subscribe(String, Consumer)}, with a listener that also hears {@link PubSubListener#gap()}
     * and {@link PubSubListener#closed()} (this node closed: a waiter can stop waiting).
     */
    public Subscription subscribe(String channel, PubSubListener listener) throws InterruptedException {
        return subscriptions.subscribe(channel, listener);
    }

    /**
     * Registers {@code listener} on {@code names} (channels, or glob patterns for PSUBSCRIBE when
     * {@code patterns}) on this node's shared pub/sub connection, without waiting for Redis: the
     * registration's {@link Subscription#ready()} completes when Redis confirmed every name, or fails
     * naming this node. Only the first use, which opens the connection, blocks (at most the command
     * timeout). After a lost connection the names are subscribed again and the listener hears
     * {@link PubSubListener#gap()}. Messages arrive on a Lettuce I/O thread.
     *
     * @throws CoordisException     when the pub/sub connection cannot be opened
     * @throws InterruptedException when interrupted while it opens (it is closed once it opens)
     */
    public Subscription subscribe(java.util.Collection<String> names, boolean patterns, PubSubListener listener)
            throws InterruptedException {
        return subscriptions.subscribe(names, patterns, listener);
    }

    /**
     * One {@code SCAN cursor MATCH match COUNT count [TYPE type]} step (never {@code KEYS}): answers the
     * next cursor ({@code "0"} when the scan is complete) and the keys of this step. {@code type} may be
     * {@code null} for every type; the TYPE filter needs Redis 6.0 or later.
     */
    public CompletableFuture<KeyPage> scan(String cursor, String match, String type, long count) {
        io.lettuce.core.KeyScanArgs args = io.lettuce.core.KeyScanArgs.Builder.matches(match).limit(count);
        if (type != null) {
            args.type(type);
        }
        return send(c -> c.scan(io.lettuce.core.ScanCursor.of(cursor), args))
                .thenApply(page -> new KeyPage(page.isFinished() ? "0" : page.getCursor(), List.copyOf(page.getKeys())));
    }

    /** {@code PUBSUB CHANNELS pattern}: the channels with at least one subscriber on this node. */
    public CompletableFuture<List<String>> pubsubChannels(String pattern) {
        return send(c -> c.pubsubChannels(pattern));
    }

    /** {@code PUBSUB NUMSUB channel...}: subscribers per channel on this node (pattern subscribers not counted). */
    public CompletableFuture<java.util.Map<String, Long>> pubsubNumsub(List<String> channels) {
        if (channels.isEmpty()) {
            return CompletableFuture.completedFuture(java.util.Map.of());
        }
        return send(c -> c.pubsubNumsub(channels.toArray(String[]::new)));
    }

    /** One step of a {@link #scan}: the cursor to continue from ({@code "0"}: done) and the keys found. */
    public record KeyPage(String cursor, List<String> keys) {
    }

    /** {@code GET key}. */
    public CompletableFuture<String> get(String key) {
        return send(c -> c.get(key));
    }

    /** {@code DEL key}, answering how many keys were removed. */
    public CompletableFuture<Long> del(String key) {
        return send(c -> c.del(key));
    }

    /**
     * Waits for {@code future} at most {@code timeout}, turning a timeout or failure into a
     * {@link CoordisException} that names this node.
     */
    public <T> T await(CompletionStage<T> future, Duration timeout) throws InterruptedException {
        try {
            return future.toCompletableFuture().get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), address);
        } catch (TimeoutException e) {
            connector.topologyChanged();
            // The reply may still come, or never: either way this connection's replies can no longer be
            // trusted to match its commands, so it is replaced.
            CompletableFuture<?> pending = future.toCompletableFuture();
            if (pending instanceof Sent<?> sent && sent.connectedAtSend) {
                replaceAfterTimeout(sent.via);
            }
            throw RedisErrors.translate(new TimeoutException("no reply within " + timeout.toMillis() + " ms"), address);
        }
    }

    /** Like {@link #await} but keeps waiting through interrupts, restoring the interrupt flag afterwards. */
    public <T> T awaitUninterruptibly(CompletionStage<T> future, Duration timeout) {
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    return await(future, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Binary-safe list commands on this node (queues), with their own connections: opened on first use,
     * closed with this node.
     */
    public synchronized ListCommands lists() {
        if (closed) {
            throw new CoordisException(address, "the connection to Redis at " + address + " is closed", null);
        }
        if (lists == null) {
            lists = new ListCommands(address, commandTimeout, connector);
        }
        return lists;
    }

    /** Translates any failure into the Coordis exception family, naming this node. */
    public CoordisException translate(Throwable failure) {
        return RedisErrors.translate(failure, address);
    }

    /** A command's future that remembers the connection it went out on. */
    private static final class Sent<T> extends CompletableFuture<T> {
        final CompletableFuture<StatefulConnection<String, String>> via;
        /** Whether the connection was up when the command went out: a timeout while connecting is no reason to replace it. */
        final boolean connectedAtSend;

        Sent(CompletableFuture<StatefulConnection<String, String>> via) {
            this.via = via;
            this.connectedAtSend = via.isDone() && !via.isCompletedExceptionally();
        }
    }

    /**
     * Sends a command on the current connection; a failure leaves as a {@link CoordisException} naming
     * this node, and a timeout replaces the connection.
     */
    private <T> CompletableFuture<T> send(Function<RedisClusterAsyncCommands<String, String>, CompletionStage<T>> command) {
        if (closed) {
            // also while close() is under way: nothing new goes out once the node is closing
            return CompletableFuture.failedFuture(
                    new CoordisException(address, "the connection to Redis at " + address + " is closed", null));
        }
        CompletableFuture<StatefulConnection<String, String>> via = current();
        Sent<T> result = new Sent<>(via);
        CompletionStage<T> reply;
        if (result.connectedAtSend) {
            // the usual case: the connection is open, so the command goes out now without a stage in between
            try {
                reply = command.apply(Connector.commands(via.getNow(null)));
            } catch (RuntimeException e) {
                reply = CompletableFuture.failedFuture(e);
            }
        } else {
            reply = via.thenCompose(c -> command.apply(Connector.commands(c)));
        }
        reply.whenComplete((v, f) -> {
            if (f == null) {
                result.complete(v);
            } else {
                if (RedisErrors.unwrap(f) instanceof RedisCommandTimeoutException) {
                    replaceAfterTimeout(via);
                }
                CoordisException e = RedisErrors.translate(f, address);
                if (e instanceof io.coordis.NodeUnavailableException || RedisErrors.isRedirect(f)) {
                    connector.topologyChanged();
                }
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private CompletableFuture<StatefulConnection<String, String>> current() {
        CompletableFuture<StatefulConnection<String, String>> c = connection.get();
        return c.isCompletedExceptionally() ? replace(c) : c;
    }

    /**
     * After a timeout: {@link #replace} the connection, except on a cluster, where one connection multiplexes
     * every node and closing it would fail commands in flight to healthy masters because one was slow; Lettuce
     * matches replies per node connection, and a late reply completes only its own, already failed, command.
     */
    private void replaceAfterTimeout(CompletableFuture<StatefulConnection<String, String>> stale) {
        if (!connector.isCluster()) {
            replace(stale);
        }
    }

    /**
     * Replaces {@code stale} with a new connection (opened asynchronously) unless another caller did so
     * already, and closes {@code stale}: after a timeout a late reply could otherwise be taken for the
     * answer to a later command on the same connection.
     */
    private CompletableFuture<StatefulConnection<String, String>> replace(
            CompletableFuture<StatefulConnection<String, String>> stale) {
        CompletableFuture<StatefulConnection<String, String>> fresh = new CompletableFuture<>();
        if (closed || !connection.compareAndSet(stale, fresh)) {
            return connection.get();
        }
        log.debug("replacing the connection to {} after a timeout", address);
        stale.thenAccept(StatefulConnection::closeAsync);
        connector.connectAsync(StringCodec.UTF8).whenComplete((c, f) -> {
            if (f == null) {
                fresh.complete(c);
                if (closed) {
                    c.closeAsync();
                }
            } else {
                fresh.completeExceptionally(f);
            }
        });
        return fresh;
    }

    @Override
    public void close() {
        closed = true;
        subscriptions.close();
        synchronized (this) {
            if (lists != null) {
                lists.close();
            }
        }
        // Never the blocking close: a connection still opening completes on an I/O thread, which must not
        // wait for its own channel to close; and a stalled channel must not stall the caller past 2 s.
        try {
            connection.get().thenCompose(StatefulConnection::closeAsync).get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("closing the connection to {} did not finish cleanly: {}", address, e.toString());
        }
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
