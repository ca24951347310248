package io.coordis;

import io.coordis.election.CounterElection;
import io.coordis.election.ElectionOptions;
import io.coordis.election.Elections;
import io.coordis.election.LeaderElection;
import io.coordis.internal.ClientTimer;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.RedisResources;
import io.coordis.internal.redis.TlsSettings;
import io.coordis.inspect.Inspector;
import io.coordis.internal.redis.Uris;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Locks;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.Queues;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.PubSubSignals;
import io.coordis.signal.Signals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A Coordis client: one connection to Redis shared by every primitive made from it. Create one per
 * process (or per Redis deployment) and close it on shutdown; it is thread-safe.
 *
 * <pre>{@code
 * try (Coordis coordis = Coordis.connect("redis://127.0.0.1:6379")) {
 *     DistributedLock lock = coordis.lock("orders:42");
 *     try (Lease lease = lock.acquire(Duration.ofSeconds(5)).orElseThrow()) {
 *         // ... write to the resource, passing lease.fencingToken() along
 *     }
 * }
 * }</pre>
 *
 * <p>URLs: {@code redis://[user:password@]host:port[/db]}, {@code rediss://...} for TLS,
 * {@code redis-sentinel://host:port[,host:port]/db#masterName} for Sentinel,
 * {@code redis-cluster://[user:password@]host:port[,host:port...]} (or {@code rediss-cluster://} for TLS) for
 * Redis Cluster: the seeds are any nodes of the cluster, the topology is read from them and kept up to date.
 *
 * <p>On Redis Cluster every primitive keeps the keys of one name in one hash slot ({@code {name}:suffix},
 * or the name's own {@code {hash tag}}), so locks, elections, signals and queues work there; a name whose keys
 * would land in different slots (braces without a valid tag, such as {@code a{}b}) fails with a
 * {@link CommandRejectedException} naming CROSSSLOT. Several URLs with a cluster among them (Redlock over a
 * cluster) and replica URLs with a cluster are refused. Replication in a cluster is asynchronous: a write the
 * master acknowledged but had not passed on before it failed can be lost in a failover.
 *
 * <p>Given three or more URLs of independent masters ({@link Builder#urls}), locks are Redlock locks over
 * all of them; such a client connects to each node in the background, so a minority of nodes may be down
 * when it starts.
 */
public final class Coordis implements AutoCloseable {
    /** Default upper bound on one Redis round trip. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private final Timer timer;
    private final RedisResources resources;
    private final List<RedisNode> nodes;
    private final Locks locks;
    private final List<RedisNode> replicas;
    private final Signals signals;
    private final Elections elections;
    private final Queues queues;
    private final Inspector inspector;
    private final String keyPrefix;

    private Coordis(Builder b) {
        if (b.urls.isEmpty()) {
            throw new IllegalArgumentException("a Redis URL is required, e.g. redis://127.0.0.1:6379");
        }
        if (b.urls.size() == 2) {
            throw new IllegalArgumentException("2 Redis URLs given: give one, or at least 3 independent masters "
                    + "for Redlock (5 is typical)");
        }
        for (String url : b.urls) {
            if (Uris.isCluster(url) && b.urls.size() > 1) {
                throw new IllegalArgumentException(b.urls.size() + " Redis URLs given, one of them a Redis Cluster ("
                        + Uris.redact(url) + "): Redlock needs independent masters, and a cluster is one deployment; "
                        + "give the cluster URL alone (redis-cluster://host:port,host:port...)");
            }
        }
        if (b.urls.size() == 1 && Uris.isCluster(b.urls.get(0)) && !b.replicaUrls.isEmpty()) {
            throw new IllegalArgumentException("replica URLs cannot be combined with a Redis Cluster URL: "
                    + "the cluster's own pub/sub already reaches subscribers on replicas; remove the replica URLs");
        }
        this.timer = new ClientTimer(b.ticker);
        this.resources = new RedisResources();
        List<RedisNode> opened = new ArrayList<>();
        try {
            if (b.urls.size() == 1) {
                opened.add(RedisNode.connect(b.urls.get(0), b.commandTimeout, b.tls, resources, timer));
            } else {
                for (String url : b.urls) {
                    opened.add(RedisNode.open(url, b.commandTimeout, b.tls, resources, timer));
                }
                awaitSettled(opened, b.commandTimeout);
            }
        } catch (RuntimeException e) {
            opened.forEach(RedisNode::close);
            resources.close();
            timer.close();
            throw e;
        }
        this.nodes = List.copyOf(opened);
        this.keyPrefix = b.keyPrefix;
        this.locks = new Locks(nodes, b.keyPrefix, timer);
        this.elections = new Elections(nodes, timer);
        List<RedisNode> replicaNodes = new ArrayList<>();
        try {
            for (String url : b.replicaUrls) {
                replicaNodes.add(RedisNode.open(url, b.commandTimeout, b.tls, resources, timer));
            }
        } catch (RuntimeException e) {
            replicaNodes.forEach(RedisNode::close);
            close();
            throw e;
        }
        this.replicas = List.copyOf(replicaNodes);
        this.signals = PubSubSignals.over(nodes.get(0), replicas, b.keyPrefix, b.ticker, b.maxSignalBytes);
        this.queues = new Queues(nodes.get(0), b.keyPrefix, timer);
        this.inspector = new Inspector(nodes);
    }

    /**
     * Connects with default settings.
     *
     * @throws IllegalArgumentException when the URL is malformed
     * @throws CoordisException         when Redis is unreachable or refuses the credentials (within the
     *                                  command timeout)
     */
    public static Coordis connect(String url) {
        return builder().url(url).connect();
    }

    /**
     * Connects to one node, or for three or more URLs to independent masters for Redlock.
     *
     * @throws IllegalArgumentException when a URL is malformed, or two URLs are given
     */
    public static Coordis connect(List<String> urls) {
        return builder().urls(urls).connect();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A lock on the resource {@code name} with default options; the Redis key is the name itself, after the
     * client's {@link Builder#keyPrefix key prefix} if it has one.
     */
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * A lock on the resource {@code name} with the given options: on the Redis node, or a Redlock lock
     * over all nodes when this client has several.
     *
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     */
    public DistributedLock lock(String name, LockOptions options) {
        return locks.lock(name, prefixed(options));
    }

    /**
     * A lock on {@code name} in the format of the classic {@code SETNX} pattern (the value is the time at
     * which it expires), for sharing it with programs that still lock that way. Weaker than
     * {@link #lock(String, LockOptions)}: it needs synchronised clocks.
     *
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     */
    public DistributedLock legacyLock(String name, LockOptions options) {
        return locks.legacy(name, prefixed(options));
    }

    /**
     * Signal and wait (pub/sub), unicast signals and latched events on this client's connections:
     * published on the (first) master, heard on it and on the replicas given to
     * {@link Builder#replicaUrls}. Shares this client's connections; thread-safe.
     */
    public Signals signals() {
        return signals;
    }

    /**
     * A candidate in the lease election {@code name} (the Redis key is the name itself) with default
     * options: TTL 15 s, a fresh candidate id. See {@link LeaderElection}.
     *
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public LeaderElection election(String name) {
        return election(name, ElectionOptions.defaults());
    }

    /**
     * A candidate in the lease election {@code name} with the given options. Each call makes a new
     * candidate; make one per process and election.
     *
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public LeaderElection election(String name, ElectionOptions options) {
        return elections.election(name, prefixed(options));
    }

    /**
     * A candidate in the classic incumbent-favouring counter election on {@code key}
     * ({@code INCR key}, {@code EXPIRE key <term>}), which programs running the classic
     * {@code master()} function on the same key take part in; with the local term check built in. See
     * {@link CounterElection}.
     *
     * @param term the expiry the leader refreshes, whole seconds (the classic code uses 20 s)
     * @throws IllegalArgumentException when the key is blank or longer than 1,024 bytes in UTF-8, or the term is
     *                                  not a whole number of seconds
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public CounterElection counterElection(String key, Duration term) {
        return elections.counterElection(key, keyPrefix, term);
    }

    /**
     * The plain list {@code name} as a queue ({@code LPUSH} / {@code RPOP}, no envelope), with default
     * options; see {@link Queue}.
     *
     * @throws IllegalArgumentException when the name is empty or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public Queue queue(String name) {
        return queue(name, QueueOptions.defaults());
    }

    /** Like {@link #queue(String)} with {@code options} (order, maximum message size). */
    public Queue queue(String name, QueueOptions options) {
        return queues().plain(name, options);
    }

    /** A reliable queue on the list {@code name} with default options; see {@link ReliableQueue}. */
    public ReliableQueue reliableQueue(String name) {
        return reliableQueue(name, QueueOptions.defaults());
    }

    /**
     * A reliable (at-least-once) queue on the list {@code name}: consumers hold messages in processing
     * slots guarded by heartbeats, so nothing is lost when a consumer dies; see {@link ReliableQueue}.
     *
     * @throws IllegalArgumentException when the name is empty or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public ReliableQueue reliableQueue(String name, QueueOptions options) {
        return queues().reliable(name, options);
    }

    /** {@code options} with this client's key prefix before their own. */
    private LockOptions prefixed(LockOptions options) {
        Objects.requireNonNull(options, "lock options must not be null");
        return keyPrefix.isEmpty() ? options : options.withKeyPrefix(keyPrefix + options.keyPrefix());
    }

    /** {@code options} with this client's key prefix before their own. */
    private ElectionOptions prefixed(ElectionOptions options) {
        Objects.requireNonNull(options, "election options must not be null");
        return keyPrefix.isEmpty() ? options : options.withKeyPrefix(keyPrefix + options.keyPrefix());
    }

    /** The prefix put before every key and channel name of this client ({@link Builder#keyPrefix}); empty for none. */
    public String keyPrefix() {
        return keyPrefix;
    }

    private Queues queues() {
        if (nodes.size() > 1) {
            throw new IllegalStateException("queues live on one Redis, but this client talks to " + nodes.size()
                    + " independent masters (Redlock): connect a separate client to one Redis for queues");
        }
        return queues;
    }

    /**
     * Read-only views of the locks, elections, queues and signals on this client's Redis (Redlock: locks on
     * every node), as {@code coordis ls} and {@code coordis inspect} show them. Thread-safe.
     */
    public Inspector inspector() {
        return inspector;
    }

    /**
     * Checks the servers this client talks to (every node for Redlock) for what Coordis needs: version, role,
     * eviction policy, persistence, the ACL user's permissions (with a {@link Builder#keyPrefix key prefix}: also on
     * the keys and channels under it), clock skew. See {@link io.coordis.doctor.Doctor}.
     */
    public io.coordis.doctor.Doctor doctor() {
        return new io.coordis.doctor.Doctor(nodes, keyPrefix);
    }

    /** The Redis node this client talks to, as {@code host:port}; several are separated by commas. */
    public String address() {
        return String.join(",", nodes.stream().map(RedisNode::address).toList());
    }

    /**
     * Closes the connections; leases still open stop renewing and expire by their TTL. Callers waiting for a
     * busy lock of this client stop waiting at once and get a {@link CoordisException} naming the closed
     * connection.
     */
    @Override
    public void close() {
        nodes.forEach(RedisNode::close);
        if (replicas != null) {
            replicas.forEach(RedisNode::close);
        }
        resources.close();
        timer.close();
    }

    /**
     * Gives background connections up to {@code timeout} to open, so the first Redlock vote does not
     * spend its short per-node timeout on a handshake; nodes that are down stay down without an error.
     */
    private static void awaitSettled(List<RedisNode> nodes, Duration timeout) {
        try {
            CompletableFuture.allOf(nodes.stream().map(RedisNode::settled).toArray(CompletableFuture[]::new))
                    .get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            // some nodes are slow or down: Redlock works with a majority, and their votes say so
        }
    }

    /** Settings for a {@link Coordis} client. Not thread-safe. */
    public static final class Builder {
        private List<String> urls = List.of();
        private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
        private Ticker ticker = Ticker.system();
        private TlsSettings tls = TlsSettings.defaults();
        private List<String> replicaUrls = List.of();
        private int maxSignalBytes = QueueOptions.defaults().maxMessageBytes();
        private String keyPrefix = "";

        private Builder() {
        }

        /** The Redis URL; required (or {@link #urls}). */
        public Builder url(String url) {
            this.urls = java.util.Collections.singletonList(url);
            return this;
        }

        /**
         * One URL, or the URLs of N ≥ 3 independent masters for Redlock (odd N recommended).
         *
         * @throws IllegalArgumentException for an empty list
         */
        public Builder urls(List<String> urls) {
            Objects.requireNonNull(urls, "urls must not be null");
            if (urls.isEmpty()) {
                throw new IllegalArgumentException("at least one Redis URL is required");
            }
            this.urls = List.copyOf(urls);
            return this;
        }

        /**
         * URLs of replicas of the master given to {@link #url}, on which {@link Coordis#signals()} waiters
         * listen as well, so they still wake when the master or the link to it fails (PUBLISH is
         * replicated). Used by signals only; connected in the background. Default: none.
         *
         * @throws IllegalArgumentException for a blank URL (a malformed one fails in {@link #connect()})
         */
        public Builder replicaUrls(List<String> replicaUrls) {
            Objects.requireNonNull(replicaUrls, "replica URLs must not be null");
            for (String url : replicaUrls) {
                if (url == null || url.isBlank()) {
                    throw new IllegalArgumentException("a replica URL must not be empty");
                }
            }
            this.replicaUrls = List.copyOf(replicaUrls);
            return this;
        }

        /**
         * The largest signal data, in bytes of UTF-8, that {@link Signals#signal}, {@link Signals#signalOne} and
         * {@link io.coordis.signal.Event#signal} send; larger data is refused with an
         * {@link IllegalArgumentException} before anything is sent. Pub/sub delivers every message to every
         * subscriber at once, and Redis disconnects a subscriber whose output buffer outgrows its
         * {@code client-output-buffer-limit pubsub} (32 MB by default), so big signals are best avoided: send the
         * data through a queue or a key and signal its name. Default: 1 MiB, as a queue's
         * {@link QueueOptions#maxMessageBytes()}.
         *
         * @throws IllegalArgumentException unless 1 ≤ bytes ≤ 512 MiB (Redis's own limit)
         */
        public Builder maxSignalBytes(int bytes) {
            if (bytes < 1 || bytes > 512 << 20) {
                throw new IllegalArgumentException("max signal size must be between 1 byte and 512 MiB, was " + bytes);
            }
            this.maxSignalBytes = bytes;
            return this;
        }

        /**
         * An explicit prefix put before every Redis key and pub/sub channel this client uses: the keys of locks,
         * elections, queues and events with the keys Coordis keeps beside them, the channels of signals (broadcast,
         * unicast, patterns). With the prefix {@code billing:},
         * {@code lock("orders")} is the key {@code billing:orders}, its fence {@code {billing:orders}:fence}, and
         * {@code signals().signal("done", ...)} publishes on {@code billing:done}. Names in the API stay as given
         * ({@code name()}, {@link io.coordis.signal.Signal#channel()}); {@code key()} shows the Redis key. Programs
         * in other languages sharing the objects use the prefixed names, and so does {@link Coordis#inspector()}:
         * an operator's view of Redis as it is, it lists and reads objects by their Redis names (list one
         * tenant's objects with the glob {@code billing:*}).
         *
         * <p>Meant for sharing one Redis between applications or tenants, each client with an ACL user limited to
         * its prefix: {@code ~billing:* ~{billing:* &billing:*} (a name with its own {@code {hash tag}} keeps its
         * derived keys under the prefix). On Redis Cluster a prefix holding a {@code {hash tag}} would put every
         * object in one slot; such a prefix is refused. Default: none. Lock and election options may add a
         * prefix of their own after this one.
         *
         * @throws IllegalArgumentException when the prefix holds braces or glob characters ({@code * ? [ ] \}),
         *                                  which ACL key patterns and {@code SCAN MATCH} would read as patterns,
         *                                  or is longer than 256 bytes of UTF-8
         */
        public Builder keyPrefix(String prefix) {
            this.keyPrefix = checkPrefix(prefix);
            return this;
        }

        private static String checkPrefix(String prefix) {
            Objects.requireNonNull(prefix, "key prefix must not be null (use \"\" for none)");
            for (char c : new char[] {'{', '}', '*', '?', '[', ']', '\\'}) {
                if (prefix.indexOf(c) >= 0) {
                    throw new IllegalArgumentException("key prefix '" + prefix + "' contains '" + c + "': a prefix "
                            + "may not hold braces (they would put every object in one cluster slot) or glob "
                            + "characters (ACL rules and SCAN would read them as patterns); use e.g. \"billing:\"");
                }
            }
            if (prefix.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("key prefix '" + prefix + "' contains a blank or line break; "
                        + "use e.g. \"billing:\"");
            }
            if (io.coordis.internal.Utf8.length(prefix) > 256) {
                throw new IllegalArgumentException("key prefix is " + io.coordis.internal.Utf8.length(prefix)
                        + " bytes long in UTF-8, over the limit of 256 bytes");
            }
            return prefix;
        }

        /** Upper bound on one round trip, also the connect timeout; default 2 s, at least 10 ms. */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Durations.atLeast(timeout, Duration.ofMillis(10), "command timeout");
            return this;
        }

        /** The monotonic clock for deadlines; default {@link Ticker#system()}. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
            return this;
        }

        /**
         * For {@code rediss://} URLs: trust the CA certificates in this PEM file instead of the JVM's
         * default trust store. Default: the JVM's trust store.
         *
         * @throws IllegalArgumentException naming the file when it does not exist, cannot be read or holds no
         *                                  PEM certificate
         */
        public Builder trustedCertificates(java.nio.file.Path pemFile) {
            this.tls = tls.trusting(pemFile);
            return this;
        }

        /**
         * For {@code rediss://} URLs to servers that require client certificates ({@code tls-auth-clients yes}):
         * present the certificate chain in {@code certificateChainPem} (the client's certificate first) with the
         * unencrypted PKCS#8 private key in {@code privateKeyPem} ({@code -----BEGIN PRIVATE KEY-----}). Used by
         * every connection of the client (commands, queues, pub/sub, Sentinel, cluster nodes). Default: none.
         *
         * @throws IllegalArgumentException naming the file and what to do when a file does not exist, cannot be
         *                                  read, or is not PEM of the right kind (a PKCS#1/SEC1 key is refused with
         *                                  the command that converts it)
         */
        public Builder clientCertificate(java.nio.file.Path certificateChainPem, java.nio.file.Path privateKeyPem) {
            this.tls = tls.presenting(certificateChainPem, privateKeyPem, null);
            return this;
        }

        /**
         * Like {@link #clientCertificate(java.nio.file.Path, java.nio.file.Path)} for an encrypted PKCS#8 key
         * ({@code -----BEGIN ENCRYPTED PRIVATE KEY-----}) and its password (copied; never shown in messages).
         */
        public Builder clientCertificate(java.nio.file.Path certificateChainPem, java.nio.file.Path privateKeyPem,
                                         char[] keyPassword) {
            this.tls = tls.presenting(certificateChainPem, privateKeyPem,
                    Objects.requireNonNull(keyPassword, "key password must not be null"));
            return this;
        }

        /**
         * Whether a {@code rediss://} server's certificate must name the host in the URL (DNS name or IP address in
         * its subject alternative names); default {@code true}. {@code false} is <b>unsafe</b>: any certificate
         * from a trusted CA is then accepted for any host, so whoever holds one can pose as the server; use it only
         * for test set-ups whose certificates lack the right names. (A URL's {@code ?verifyPeer=} wins.)
         */
        public Builder verifyHostname(boolean verify) {
            this.tls = tls.verifyingHostname(verify);
            return this;
        }

        public Coordis connect() {
            return new Coordis(this);
        }
    }
}
