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
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Opens the connections of one {@link RedisNode}: to one Redis server (or a Sentinel-managed master) through
 * a {@link RedisClient}, or to a Redis Cluster through a {@link RedisClusterClient}, whose connections route
 * each command to the master of its first key's slot and follow {@code MOVED}/{@code ASK} redirects.
 * Both kinds of connection offer {@link RedisClusterAsyncCommands}, the command set Coordis uses.
 */
abstract sealed class Connector {
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
     * @throws NodeUnavailableException when no known master serves the slot
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
            HandshakeRetry.pipe(f, () -> client.connectAsync(codec, uri), this::refusedCredentials);
            return f;
        }

        @Override
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSubAsync() {
            CompletableFuture<StatefulRedisPubSubConnection<String, String>> f = new CompletableFuture<>();
            HandshakeRetry.pipe(f, () -> client.connectPubSubAsync(StringCodec.UTF8, uri), this::refusedCredentials);
            return f;
        }

        /** The server's refusal of this URL's credentials, asked apart ({@link HandshakeRetry#refusedCredentials}). */
        private CompletableFuture<Throwable> refusedCredentials() {
            return HandshakeRetry.refusedCredentials(client, uri);
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
        private final AtomicReference<CompletableFuture<Void>> topology = new AtomicReference<>();

        private CompletableFuture<Void> topology() {
            while (true) {
                CompletableFuture<Void> known = topology.get();
                if (known != null && !known.isCompletedExceptionally()) {
                    return known;
                }
                CompletableFuture<Void> fresh = new CompletableFuture<>();
                if (topology.compareAndSet(known, fresh)) {
                    HandshakeRetry.pipe(fresh, client::refreshPartitionsAsync);
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
                HandshakeRetry.pipe(f, open);
            });
            return f;
        }

        @Override
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSubAsync() {
            return this.<StatefulRedisPubSubConnection<String, String>,
                    StatefulRedisClusterPubSubConnection<String, String>>afterTopology(
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
}
