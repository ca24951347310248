package io.coordis.internal.redis;

import io.coordis.CommandRejectedException;
import io.coordis.NodeUnavailableException;
import io.coordis.Ticker;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the connections of one {@link RedisNode}: to one Redis server (or a Sentinel-managed master) through
 * a {@link RedisClient}, or to a Redis Cluster through a {@link RedisClusterClient}, whose connections route
 * each command to the master of its first key's slot and follow {@code MOVED}/{@code ASK} redirects.
 * Both kinds of connection offer {@link RedisClusterAsyncCommands}, the command set Coordis uses.
 */
abstract sealed class Connector {
    private static final Logger log = LoggerFactory.getLogger(Connector.class);
    /** How often a cluster client re-reads the topology even when nothing suggests a change. */
    static final Duration PERIODIC_REFRESH = Duration.ofSeconds(30);
    /** At most one topology read per this interval because commands failed (a node down fails many at once). */
    static final Duration REFRESH_SPACING = Duration.ofMillis(500);

    private final boolean cluster;
    private final String address;

    private Connector(boolean cluster, String address) {
        this.cluster = cluster;
        this.address = address;
    }

    /**
     * A connector for {@code uri} (one server, a Sentinel-managed master or a Redis Cluster) on {@code resources}:
     * RESP2, reconnecting by itself, rejecting commands while disconnected, connecting within {@code timeout},
     * and without Lettuce's command timeouts ({@link Connection} keeps the deadlines). Opens nothing yet.
     *
     * @throws IllegalArgumentException when the URL is malformed or the TLS files cannot be used
     */
    static Connector open(String uri, Duration timeout, TlsSettings tls, ClientResources resources, Ticker ticker) {
        boolean cluster = Uris.isCluster(uri);
        List<RedisURI> seeds = cluster ? Uris.parseCluster(uri, timeout) : List.of(Uris.parse(uri, timeout));
        seeds.forEach(tls::apply);
        ClientOptions options = ClientOptions.builder()
                .protocolVersion(ProtocolVersion.RESP2)
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build())
                .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
                .sslOptions(tls.sslOptions(timeout))
                .build();
        if (cluster) {
            RedisClusterClient client = RedisClusterClient.create(resources, seeds);
            client.setOptions(clusterOptions(options));
            return new Cluster(client, seeds, ticker);
        }
        RedisClient client = new AsyncOnlyClient(resources, seeds.get(0));
        client.setOptions(options);
        return new Standalone(client, seeds.get(0));
    }

    /** Client options for a cluster client with the settings of {@code base}, refreshing the topology on redirects and reconnects. */
    private static ClusterClientOptions clusterOptions(ClientOptions base) {
        return ClusterClientOptions.builder(base)
                // node connections open lazily, on the first command routed to them: rejecting commands
                // while disconnected would reject that first command; they are bounded by the command timeout
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(PERIODIC_REFRESH)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .build())
                .build();
    }

    final boolean isCluster() {
        return cluster;
    }

    /** {@code host:port} of the server, or the seeds of a cluster, for messages. */
    final String address() {
        return address;
    }

    /** On a cluster, its nodes in the current topology; nothing elsewhere. */
    List<RedisClusterNode> clusterNodes() {
        return List.of();
    }

    abstract <K, V> CompletableFuture<StatefulConnection<K, V>> connectAsync(RedisCodec<K, V> codec);

    /**
     * A new pub/sub connection (on a cluster: to one node; PUBLISH reaches subscribers on every node), without
     * blocking: completes when the connection is open.
     */
    abstract CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSubAsync();

    /**
     * A connector of its own (to be shut down by its owner) with the same settings but whose connections do not
     * reconnect by themselves: their owner replaces a lost connection with a new one. For pub/sub, where a
     * connection that reconnects on its own can end up with two live sockets after a reconnection attempt that
     * outlasted its timeout, both subscribed, and every message delivered twice.
     */
    abstract Connector withoutAutoReconnect();

    abstract AbstractRedisClient client();

    /**
     * On a cluster, the master that serves {@code key}'s slot in the current topology; {@code null} elsewhere.
     *
     * @throws io.coordis.NodeUnavailableException when no known master serves the slot
     */
    RedisURI masterFor(String key, String node) {
        return null;
    }

    /**
     * A command was redirected ({@code MOVED}/{@code ASK}) outside the cluster client's routing, or failed
     * because a node is unreachable or silent: re-read the topology (at most every {@link #REFRESH_SPACING}),
     * so that a promoted replica is found without waiting for the periodic refresh.
     */
    void topologyChanged() {
    }

    void shutdown(Duration quiet, Duration timeout) {
        client().shutdown(quiet, timeout);
    }

    /** The async command set of a connection this connector opened. */
    @SuppressWarnings("unchecked")
    static <K, V> RedisClusterAsyncCommands<K, V> commands(StatefulConnection<K, V> connection) {
        if (connection instanceof StatefulRedisClusterConnection<K, V> cluster) {
            return cluster.async();
        }
        return ((StatefulRedisConnection<K, V>) connection).async();
    }

    /**
     * On a cluster, fails unless every key lies in one hash slot, naming the keys, their slots and what to do;
     * a script or a two-key command could not run otherwise. Nothing to check elsewhere.
     *
     * @throws CommandRejectedException naming CROSSSLOT
     */
    void requireOneSlot(List<String> keys, String node) {
        if (!isCluster() || keys.size() < 2) {
            return;
        }
        int first = SlotHash.getSlot(keys.get(0));
        for (String key : keys.subList(1, keys.size())) {
            int slot = SlotHash.getSlot(key);
            if (slot != first) {
                throw new CommandRejectedException(node, "CROSSSLOT: keys '" + keys.get(0) + "' (slot " + first
                        + ") and '" + key + "' (slot " + slot + ") lie in different Redis Cluster hash slots, so one "
                        + "command cannot use both; on Redis Cluster use a name without braces, or one whose {hash tag} "
                        + "is not empty (such as {orders}:42)", null);
            }
        }
    }

    private static final class Standalone extends Connector {
        private final RedisClient client;
        private final RedisURI uri;

        Standalone(RedisClient client, RedisURI uri) {
            super(false, Uris.address(uri));
            this.client = client;
            this.uri = uri;
        }

        @Override
        <K, V> CompletableFuture<StatefulConnection<K, V>> connectAsync(RedisCodec<K, V> codec) {
            CompletableFuture<StatefulConnection<K, V>> f = new CompletableFuture<>();
            pipe(f, () -> client.connectAsync(codec, uri), this::refusedCredentials);
            return f;
        }

        @Override
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSubAsync() {
            CompletableFuture<StatefulRedisPubSubConnection<String, String>> f = new CompletableFuture<>();
            pipe(f, () -> client.connectPubSubAsync(StringCodec.UTF8, uri), this::refusedCredentials);
            return f;
        }

        /**
         * The server's refusal of this URL's credentials, asked on a connection of its own whose handshake sends
         * nothing that can fail (no credentials, no PING), so that the answer comes back as a command's reply
         * and no closing channel can overtake it; {@code null} when the server accepts them, when the URL has no
         * password (or goes through Sentinel or a Unix socket), or when nothing could be asked (the server drops
         * this connection too: a TLS-only port).
         */
        private CompletableFuture<Throwable> refusedCredentials() {
            if (uri.getSocket() != null || !uri.getSentinels().isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            return uri.getCredentialsProvider().resolveCredentials().toFuture().thenCompose(credentials -> {
                if (credentials == null || !credentials.hasPassword()) {
                    return CompletableFuture.<Throwable>completedFuture(null);
                }
                RedisURI bare = RedisURI.builder().withHost(uri.getHost()).withPort(uri.getPort())
                        .withSsl(uri.isSsl()).withStartTls(uri.isStartTls()).withVerifyPeer(uri.getVerifyMode())
                        .withTimeout(uri.getTimeout()).build();
                RedisClient asker = RedisClient.create(client.getResources(), bare);
                asker.setOptions(client.getOptions().mutate().pingBeforeActivateConnection(false)
                        .autoReconnect(false).build());
                CharSequence password = java.nio.CharBuffer.wrap(credentials.getPassword());
                CompletableFuture<Throwable> said = asker.connectAsync(StringCodec.UTF8, bare).toCompletableFuture()
                        .thenCompose(c -> (credentials.hasUsername()
                                ? c.async().auth(credentials.getUsername(), password) : c.async().auth(password))
                                .toCompletableFuture().handle((accepted, refused) -> {
                                    c.closeAsync();
                                    return RedisErrors.unwrap(refused);
                                }));
                said.whenComplete((answer, failure) -> asker.shutdownAsync(0, 2, java.util.concurrent.TimeUnit.SECONDS));
                return said;
            }).orTimeout(Math.max(1, uri.getTimeout().toMillis()), java.util.concurrent.TimeUnit.MILLISECONDS)
                    .exceptionally(nothingLearnt -> null);
        }

        @Override
        Connector withoutAutoReconnect() {
            RedisClient own = new AsyncOnlyClient(client.getResources(), uri);
            own.setOptions(client.getOptions().mutate().autoReconnect(false).build());
            return new Standalone(own, uri);
        }

        @Override
        AbstractRedisClient client() {
            return client;
        }
    }

    private static final class Cluster extends Connector {
        private final RedisClusterClient client;
        private final List<RedisURI> seeds;
        /** The client's clock, which spaces the topology reads after failures. */
        private final Ticker ticker;
        /** When the topology was last read (first when the client was made), on {@link #ticker}. */
        private final AtomicLong lastRefresh;

        Cluster(RedisClusterClient client, List<RedisURI> seeds, Ticker ticker) {
            super(true, Uris.clusterAddress(seeds));
            this.client = client;
            this.seeds = List.copyOf(seeds);
            this.ticker = ticker;
            this.lastRefresh = new AtomicLong(ticker.read());
        }

        @Override
        List<RedisClusterNode> clusterNodes() {
            return List.copyOf(client.getPartitions().getPartitions());
        }

        /** The first topology read; connections can only be opened once it succeeded (redone after a failure). */
        private final java.util.concurrent.atomic.AtomicReference<CompletableFuture<Void>> topology =
                new java.util.concurrent.atomic.AtomicReference<>();

        private CompletableFuture<Void> topology() {
            while (true) {
                CompletableFuture<Void> known = topology.get();
                if (known != null && !known.isCompletedExceptionally()) {
                    return known;
                }
                CompletableFuture<Void> fresh = new CompletableFuture<>();
                if (topology.compareAndSet(known, fresh)) {
                    pipe(fresh, client::refreshPartitionsAsync);
                    return fresh;
                }
            }
        }

        @Override
        <K, V> CompletableFuture<StatefulConnection<K, V>> connectAsync(RedisCodec<K, V> codec) {
            return afterTopology(() -> client.connectAsync(codec));
        }

        /** Opens a connection once the topology is known (Lettuce requires it); failures of either complete it. */
        private <T, C extends T> CompletableFuture<T> afterTopology(
                Supplier<? extends CompletionStage<C>> open) {
            CompletableFuture<T> f = new CompletableFuture<>();
            topology().whenComplete((ready, failed) -> {
                if (failed != null) {
                    f.completeExceptionally(failed);
                    return;
                }
                pipe(f, open);
            });
            return f;
        }

        @Override
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSubAsync() {
            return this.<StatefulRedisPubSubConnection<String, String>, io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection<String, String>>afterTopology(
                    () -> client.connectPubSubAsync(StringCodec.UTF8));
        }

        @Override
        Connector withoutAutoReconnect() {
            RedisClusterClient own = RedisClusterClient.create(client.getResources(), seeds);
            ClusterClientOptions options = (ClusterClientOptions) client.getOptions();
            own.setOptions(options.mutate().autoReconnect(false).build());
            return new Cluster(own, seeds, ticker);
        }

        @Override
        AbstractRedisClient client() {
            return client;
        }

        @Override
        RedisURI masterFor(String key, String node) {
            int slot = SlotHash.getSlot(key);
            RedisClusterNode owner;
            try {
                owner = client.getPartitions().getPartitionBySlot(slot);
            } catch (RuntimeException e) {
                throw RedisErrors.translate(e, node);
            }
            if (owner == null || owner.getUri() == null) {
                throw new NodeUnavailableException(node, "no master of the Redis Cluster " + node + " serves slot " + slot
                        + " (of key '" + key + "') now; the cluster may be failing over, retry shortly", null);
            }
            return owner.getUri();
        }

        @Override
        void topologyChanged() {
            long last = lastRefresh.get();
            long now = ticker.read();
            if (now - last >= REFRESH_SPACING.toNanos() && lastRefresh.compareAndSet(last, now)) {
                client.refreshPartitionsAsync();
            }
        }
    }

    /**
     * How many times a connection is opened when each attempt ends with the channel closed during the handshake
     * and nothing from the server (see {@link RedisErrors#lostHandshakeAnswer}).
     */
    static final int HANDSHAKE_ATTEMPTS = 3;
    /** The pause before opening again after such an attempt, times the attempts made: past a burst of load. */
    private static final Duration HANDSHAKE_PAUSE = Duration.ofMillis(20);

    /** {@link #pipe(CompletableFuture, Supplier, Supplier)} where the server's answer cannot be asked apart. */
    private static <T, C extends T> void pipe(CompletableFuture<T> f, Supplier<? extends CompletionStage<C>> open) {
        pipe(f, open, () -> CompletableFuture.completedFuture(null));
    }

    /**
     * Completes {@code f} as the stage that {@code open} starts completes; a failure to start fails it too. Lettuce
     * closes the channel when Redis refuses the handshake (a wrong password), and on a loaded machine the close can
     * overtake the refusal and be all it reports (the thread that opened the connection was descheduled while the
     * whole handshake ran and failed). After such an attempt the server's answer is asked apart ({@code refusal}:
     * its refusal, or {@code null} when it cannot be asked or was not a refusal); with no refusal the connection
     * is opened again after a pause, up to {@link #HANDSHAKE_ATTEMPTS} in all, while a server that really drops
     * new connections (a TLS-only port) drops every attempt.
     */
    private static <T, C extends T> void pipe(CompletableFuture<T> f, Supplier<? extends CompletionStage<C>> open,
                                              Supplier<CompletableFuture<Throwable>> refusal) {
        pipe(f, open, refusal, 1);
    }

    private static <T, C extends T> void pipe(CompletableFuture<T> f, Supplier<? extends CompletionStage<C>> open,
                                              Supplier<CompletableFuture<Throwable>> refusal, int attempt) {
        try {
            open.get().whenComplete((value, failure) -> {
                if (failure == null) {
                    f.complete(value);
                } else if (!RedisErrors.lostHandshakeAnswer(failure)) {
                    f.completeExceptionally(failure);
                } else {
                    refusal.get().whenComplete((refused, ignored) -> {
                        if (refused != null) {
                            refused.addSuppressed(failure);
                            f.completeExceptionally(refused);
                        } else if (attempt < HANDSHAKE_ATTEMPTS) {
                            log.debug("a connection closed during its handshake without the server's answer; "
                                    + "trying again");
                            CompletableFuture.delayedExecutor(HANDSHAKE_PAUSE.toMillis() * attempt,
                                            java.util.concurrent.TimeUnit.MILLISECONDS)
                                    .execute(() -> pipe(f, open, refusal, attempt + 1));
                        } else {
                            f.completeExceptionally(failure);
                        }
                    });
                }
            });
        } catch (RuntimeException e) {
            f.completeExceptionally(e);
        }
    }
}
