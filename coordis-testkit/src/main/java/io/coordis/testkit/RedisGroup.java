package io.coordis.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Several {@link RedisServer}s started and closed together: either independent masters (for
 * quorum-style algorithms across N nodes) or one master with replicas.
 */
public final class RedisGroup implements AutoCloseable {

    /** How long {@link #masterWithReplicas(int)} waits for every replica link to come up. */
    public static final Duration REPLICA_SYNC_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServer> servers;
    private final boolean replicated;

    private RedisGroup(List<RedisServer> servers, boolean replicated) {
        this.servers = Collections.unmodifiableList(servers);
        this.replicated = replicated;
    }

    /**
     * Starts {@code n} independent masters with default options, in parallel.
     *
     * @param n how many masters
     * @return the running group; close it to stop
     */
    public static RedisGroup masters(int n) {
        return masters(n, RedisServer.builder());
    }

    /**
     * Starts {@code n} independent masters from {@code template}, in parallel. Blocks until all answer
     * PING; if any fails, the others are closed and the first failure is thrown.
     *
     * @param n        how many masters
     * @param template the servers' options
     * @return the running group; close it to stop
     */
    public static RedisGroup masters(int n, RedisServerBuilder template) {
        if (n < 1) {
            throw new IllegalArgumentException("a group needs at least one master, got " + n);
        }
        if (n > 1 && template.port != 0) {
            throw new IllegalArgumentException("a fixed port cannot be used for " + n + " masters");
        }
        return new RedisGroup(Processes.startAll(n, template::start, "coordis-redis-start", RedisServer::close), false);
    }

    /**
     * Starts a master and {@code replicas} replicas with default options.
     *
     * @param replicas how many replicas
     * @return the running group; close it to stop
     */
    public static RedisGroup masterWithReplicas(int replicas) {
        return masterWithReplicas(replicas, RedisServer.builder());
    }

    /**
     * Starts a master from {@code template}, then {@code replicas} replicas of it (same options plus
     * {@code replicaof}), and blocks until every replica reports {@code master_link_status:up}
     * (at most {@link #REPLICA_SYNC_TIMEOUT}).
     *
     * @param replicas how many replicas
     * @param template the servers' options
     * @return the running group; close it to stop
     * @throws IllegalStateException if a replica does not sync in time (all servers are closed)
     */
    public static RedisGroup masterWithReplicas(int replicas, RedisServerBuilder template) {
        if (replicas < 0) {
            throw new IllegalArgumentException("replica count must not be negative, got " + replicas);
        }
        if (template.port != 0) {
            throw new IllegalArgumentException("a fixed port cannot be used for a master with replicas");
        }
        RedisServer master = template.start();
        List<RedisServer> all = new ArrayList<>();
        all.add(master);
        try {
            RedisServerBuilder replica = template.copy().replicaOf(master);
            all.addAll(Processes.startAll(replicas, replica::start, "coordis-redis-start", RedisServer::close));
            RedisGroup group = new RedisGroup(all, true);
            group.awaitReplicasInSync(REPLICA_SYNC_TIMEOUT);
            return group;
        } catch (RuntimeException e) {
            Processes.closeAll(all);
            throw e;
        }
    }

    /**
     * Blocks until every replica reports {@code master_link_status:up}, polling INFO replication.
     *
     * @param timeout how long to wait
     * @throws IllegalStateException on timeout, naming the replica and its last status
     */
    public void awaitReplicasInSync(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisServer replica : replicas()) {
            replica.awaitReplicationLinkUp(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    /**
     * True for a master-with-replicas group, false for independent masters.
     *
     * @return {@code true} for a master with replicas
     */
    public boolean hasReplicas() {
        return replicated;
    }

    /**
     * All servers; for {@link #masterWithReplicas(int)} the master comes first.
     *
     * @return the servers
     */
    public List<RedisServer> servers() {
        return servers;
    }

    /**
     * The {@code i}-th server (0-based).
     *
     * @param i the server's index
     * @return the server
     */
    public RedisServer server(int i) {
        return servers.get(i);
    }

    /**
     * Number of servers.
     *
     * @return the count
     */
    public int size() {
        return servers.size();
    }

    /**
     * URIs of all servers in {@link #servers()} order.
     *
     * @return the URIs
     */
    public List<String> uris() {
        return servers.stream().map(RedisServer::uri).toList();
    }

    /**
     * The master (the first server).
     *
     * @return the master
     */
    public RedisServer master() {
        return servers.get(0);
    }

    /**
     * The replicas of {@link #master()}.
     *
     * @return the replicas
     * @throws IllegalStateException for a group of independent masters
     */
    public List<RedisServer> replicas() {
        if (!replicated) {
            throw new IllegalStateException("this group consists of independent masters and has no replicas");
        }
        return servers.subList(1, servers.size());
    }

    /** Closes all servers (replicas first). Idempotent. */
    @Override
    public void close() {
        Processes.closeAll(servers);
    }
}
