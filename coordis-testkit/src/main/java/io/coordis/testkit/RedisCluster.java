package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A Redis Cluster of real {@code redis-server} processes on free loopback ports, each in its own temporary
 * directory: N masters (default 3) sharing the 16384 hash slots evenly, and optionally replicas of each.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.builder().masters(3).replicasPerMaster(1).start()) {
 *     String url = cluster.uri();          // redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3
 *     RedisServer owner = cluster.masterForKey("orders");
 *     cluster.failover(cluster.replicasOf(owner).get(0), true);
 * }
 * }</pre>
 *
 * <p>Slots are assigned with {@code CLUSTER ADDSLOTS} in chunks (which every Redis since 3.0 has), nodes
 * are joined with {@code CLUSTER MEET}, replicas with {@code CLUSTER REPLICATE}; {@link Builder#start()}
 * returns once every node reports {@code cluster_state:ok} and knows every other node. Servers are
 * stopped by PID when the cluster is closed. Lookups ({@link #masterOf(int)}) ask the running nodes, so they
 * follow failovers. Not thread-safe for concurrent reconfiguration; lookups may be called from any thread.
 */
public final class RedisCluster implements AutoCloseable {
    /** Number of hash slots in a Redis Cluster. */
    public static final int SLOTS = 16384;
    /** How long {@link Builder#start()} and {@link #failover} wait for the cluster to settle. */
    public static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServer> masters;
    private final List<RedisServer> replicas;
    private final Map<RedisServer, String> ids;

    RedisCluster(List<RedisServer> masters, List<RedisServer> replicas, Map<RedisServer, String> ids) {
        this.masters = Collections.unmodifiableList(masters);
        this.replicas = Collections.unmodifiableList(replicas);
        this.ids = Collections.unmodifiableMap(ids);
    }

    /**
     * Options for a cluster; defaults: 3 masters, no replicas, node timeout 5 s.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts 3 masters without replicas.
     *
     * @return the running cluster; close it to stop
     */
    public static RedisCluster start() {
        return builder().start();
    }

    /**
     * The servers started as masters, in slot order (the first owned slots 0..); roles may change by failover.
     *
     * @return the masters
     */
    public List<RedisServer> masters() {
        return masters;
    }

    /**
     * The servers started as replicas (replica {@code i} of master {@code m} at {@code m * perMaster + i}).
     *
     * @return the replicas
     */
    public List<RedisServer> replicas() {
        return replicas;
    }

    /**
     * Every server, masters first.
     *
     * @return the servers
     */
    public List<RedisServer> servers() {
        List<RedisServer> all = new ArrayList<>(masters);
        all.addAll(replicas);
        return all;
    }

    /**
     * {@code host:port} of every server started as a master, for a client's seed list.
     *
     * @return the seeds
     */
    public List<String> seeds() {
        return masters.stream().map(RedisServer::address).toList();
    }

    /**
     * {@code redis-cluster://host:port,host:port,...} with every master as a seed.
     *
     * @return the URI
     */
    public String uri() {
        return "redis-cluster://" + String.join(",", seeds());
    }

    /**
     * The cluster node id of {@code server}.
     *
     * @param server a server of this cluster
     * @return its node id
     */
    public String nodeId(RedisServer server) {
        String id = ids.get(server);
        if (id == null) {
            throw new IllegalArgumentException(server + " is not a node of this cluster");
        }
        return id;
    }

    /**
     * The hash slot of {@code key} (CRC16 of the key, or of its {@code {hash tag}}, modulo 16384).
     *
     * @param key the key
     * @return the slot, 0 to 16383
     */
    public static int slot(String key) {
        return KeySlots.slot(key);
    }

    /**
     * The running master that currently serves {@code slot}, as that master itself reports it.
     *
     * @param slot the slot
     * @return the master
     * @throws IllegalStateException when no running master claims the slot
     */
    public RedisServer masterOf(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in 0..16383, got " + slot);
        }
        for (RedisServer s : servers()) {
            if (!s.isRunning() || s.isPaused()) {
                continue;
            }
            ClusterNode me = ClusterNode.self(s);
            if (me.master() && me.owns(slot)) {
                return s;
            }
        }
        throw new IllegalStateException("no running master of this cluster claims slot " + slot);
    }

    /**
     * {@link #masterOf(int)} of the key's slot.
     *
     * @param key the key
     * @return the master
     */
    public RedisServer masterForKey(String key) {
        return masterOf(slot(key));
    }

    /**
     * Keys {@code prefix + n} for n = 0, 1, ..., one on each running master: the first key found on each, in
     * the order of {@link #servers()}.
     *
     * @param prefix the keys' prefix
     * @return one key per running master
     */
    public List<String> keysOnEveryMaster(String prefix) {
        Map<RedisServer, String> found = new LinkedHashMap<>();
        for (RedisServer s : servers()) {
            if (s.isRunning() && !s.isPaused() && ClusterNode.self(s).master()) {
                found.put(s, null);
            }
        }
        Map<Integer, RedisServer> bySlot = new LinkedHashMap<>();
        for (int n = 0; found.containsValue(null); n++) {
            if (n > 100_000) {
                throw new IllegalStateException("no key with prefix " + prefix + " found on every master");
            }
            String key = prefix + n;
            RedisServer owner = bySlot.computeIfAbsent(slot(key), this::masterOf);
            if (found.get(owner) == null) {
                found.put(owner, key);
            }
        }
        return List.copyOf(found.values());
    }

    /**
     * The servers that currently replicate {@code master}, as the running nodes report it.
     *
     * @param master a master of this cluster
     * @return its replicas
     */
    public List<RedisServer> replicasOf(RedisServer master) {
        String id = nodeId(master);
        List<RedisServer> out = new ArrayList<>();
        for (RedisServer s : servers()) {
            if (s.isRunning() && !s.isPaused() && id.equals(ClusterNode.self(s).masterId())) {
                out.add(s);
            }
        }
        return out;
    }

    /** {@code FLUSHALL} on every running master (replicas follow). */
    public void flushAll() {
        for (RedisServer s : servers()) {
            if (s.isRunning() && !s.isPaused() && ClusterNode.self(s).master()) {
                s.flushAll();
            }
        }
    }

    /**
     * Promotes {@code replica} with {@code CLUSTER FAILOVER} ({@code FORCE} when {@code force}, which also works
     * when its master is down or paused) and blocks until every running node sees it as the master of the
     * slots and reports {@code cluster_state:ok} (at most {@link #SETTLE_TIMEOUT}).
     *
     * @param replica the replica to promote
     * @param force   whether to fail over without the master's agreement
     * @throws IllegalStateException when the failover does not complete in time
     */
    public void failover(RedisServer replica, boolean force) {
        ClusterFormation.promote(this, replica, force ? new String[] {"CLUSTER", "FAILOVER", "FORCE"} : new String[] {"CLUSTER", "FAILOVER"});
    }

    /**
     * Promotes {@code replica} with {@code CLUSTER FAILOVER TAKEOVER}: on its own, without the master's agreement
     * or the other masters' votes, and without catching up with the master first (what the master accepted and had
     * not yet sent it is lost when the master learns of the promotion and turns into its replica). Blocks as
     * {@link #failover} does.
     *
     * @param replica the replica to promote
     */
    public void takeover(RedisServer replica) {
        ClusterFormation.promote(this, replica, "CLUSTER", "FAILOVER", "TAKEOVER");
    }

    /**
     * Blocks until every running node reports {@code cluster_state:ok} (at most {@code timeout}).
     *
     * @param timeout how long to wait
     */
    public void awaitOk(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!everyRunningNode(ClusterNode::clusterOk)) {
            if (System.nanoTime() > deadline) {
                StringBuilder states = new StringBuilder();
                for (RedisServer s : servers()) {
                    if (s.isRunning() && !s.isPaused()) {
                        states.append(' ').append(s.address()).append('=').append(ClusterNode.clusterInfo(s).get("cluster_state"));
                    }
                }
                throw new IllegalStateException("cluster not ok within " + timeout + ":" + states);
            }
            ProcessSupport.sleep(Duration.ofMillis(50));
        }
    }

    /** Stops every server (replicas first) and deletes their directories. Idempotent. */
    @Override
    public void close() {
        Processes.closeAll(servers());
    }

    @Override
    public String toString() {
        return "RedisCluster" + seeds();
    }

    /** True if {@code check} holds for every running node that is not paused. */
    boolean everyRunningNode(Predicate<RedisServer> check) {
        for (RedisServer s : servers()) {
            if (s.isRunning() && !s.isPaused() && !check.test(s)) {
                return false;
            }
        }
        return true;
    }

    /** Settings for a {@link RedisCluster}. Not thread-safe. */
    public static final class Builder {
        private int masters = 3;
        private int replicasPerMaster;
        private Duration nodeTimeout = Duration.ofSeconds(5);
        private RedisServerBuilder template = RedisServer.builder();

        private Builder() {
        }

        /**
         * Number of masters; default 3, at least 1.
         *
         * @param n the number of masters
         * @return this builder
         */
        public Builder masters(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("a cluster needs at least 1 master, got " + n);
            }
            this.masters = n;
            return this;
        }

        /**
         * Replicas of each master; default 0.
         *
         * @param n the number of replicas of each master
         * @return this builder
         */
        public Builder replicasPerMaster(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("replicas per master must not be negative, got " + n);
            }
            this.replicasPerMaster = n;
            return this;
        }

        /**
         * {@code cluster-node-timeout}: how long a node may be unreachable before it is failed over
         * automatically; default 5 s (tests that want no automatic failover while a node is paused
         * should set a longer one).
         *
         * @param timeout the node timeout
         * @return this builder
         */
        public Builder nodeTimeout(Duration timeout) {
            if (timeout.toMillis() < 100) {
                throw new IllegalArgumentException("node timeout must be at least 100 ms, got " + timeout);
            }
            this.nodeTimeout = timeout;
            return this;
        }

        /**
         * Options every server starts with (binary, persistence such as {@code appendFsync("always")},
         * password); no fixed port, no {@code replicaOf}. Default: {@link RedisServer#builder()}.
         *
         * @param template the servers' options
         * @return this builder
         */
        public Builder template(RedisServerBuilder template) {
            Objects.requireNonNull(template, "template");
            if (template.port != 0 || template.replicaOf != null || template.sentinelLines != null) {
                throw new IllegalArgumentException("a cluster template must not set a fixed port, replicaOf or sentinel mode");
            }
            if (template.requirePass != null) {
                throw new IllegalArgumentException("a password-protected cluster is not supported by this kit yet");
            }
            this.template = template;
            return this;
        }

        /**
         * Starts the servers in parallel, assigns slots, joins them and blocks until the cluster is ok on
         * every node (at most {@link #SETTLE_TIMEOUT}).
         *
         * @return the running cluster; close it to stop
         * @throws IllegalStateException when a server does not start or the cluster does not settle (every
         *                               server started is closed)
         */
        public RedisCluster start() {
            RedisServerBuilder node = RedisServerBuilder.leastPrivileged(template).arg("--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", Long.toString(nodeTimeout.toMillis()));
            return ClusterFormation.form(node, masters, replicasPerMaster);
        }
    }
}
