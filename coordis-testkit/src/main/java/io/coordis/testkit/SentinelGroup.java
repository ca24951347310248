package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A master, its replicas and several sentinels monitoring them, started and closed together.
 *
 * <pre>{@code
 * try (SentinelGroup group = SentinelGroup.start(2, 3)) {
 *     String url = group.sentinelUri();        // redis-sentinel://127.0.0.1:p1,...#mymaster
 *     RedisServer old = group.master();
 *     old.kill();
 *     RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>The quorum is a majority of the sentinels. {@link #start} returns once every sentinel reports
 * the master, knows every replica and every other sentinel, so a failover can happen at once.
 */
public final class SentinelGroup implements AutoCloseable {

    /** The master name used unless another is given. */
    public static final String DEFAULT_MASTER_NAME = "mymaster";
    /** How long {@link #start} waits for the sentinels to discover the replicas and each other. */
    public static final Duration DISCOVERY_TIMEOUT = Duration.ofSeconds(30);

    private final RedisGroup servers;
    private final List<RedisSentinel> sentinels;
    private final String masterName;

    private SentinelGroup(RedisGroup servers, List<RedisSentinel> sentinels, String masterName) {
        this.servers = servers;
        this.sentinels = Collections.unmodifiableList(sentinels);
        this.masterName = masterName;
    }

    /**
     * {@code replicas} replicas and {@code sentinels} sentinels, master name {@value #DEFAULT_MASTER_NAME}.
     *
     * @param replicas  how many replicas
     * @param sentinels how many sentinels
     * @return the running group; close it to stop
     */
    public static SentinelGroup start(int replicas, int sentinels) {
        return start(replicas, sentinels, DEFAULT_MASTER_NAME);
    }

    /**
     * {@code replicas} replicas and {@code sentinels} sentinels monitoring {@code masterName}; in the
     * least-privilege pass ({@link RedisServerBuilder#LEAST_PRIVILEGE_ENV}) the servers' default user is
     * restricted, as {@link RedisExtension#masters(int, RedisServerBuilder)} restricts it.
     *
     * @param replicas   how many replicas
     * @param sentinels  how many sentinels
     * @param masterName the name the master is monitored under
     * @return the running group; close it to stop
     */
    public static SentinelGroup start(int replicas, int sentinels, String masterName) {
        return start(replicas, sentinels, masterName, RedisServerBuilder.leastPrivileged(RedisServer.builder()));
    }

    /**
     * Starts a master and {@code replicas} replicas from {@code template} (see
     * {@link RedisGroup#masterWithReplicas(int, RedisServerBuilder)}), then {@code sentinels} sentinels
     * in parallel, and blocks until they have discovered each other and the replicas (at most
     * {@link #DISCOVERY_TIMEOUT}). A requirepass in the template becomes the sentinels' auth-pass.
     *
     * @param replicas   how many replicas
     * @param sentinels  how many sentinels
     * @param masterName the name the master is monitored under
     * @param template   the servers' options
     * @return the running group; close it to stop
     * @throws IllegalArgumentException for a TLS template (not supported with sentinels)
     * @throws IllegalStateException    if anything fails to start; everything started is closed
     */
    public static SentinelGroup start(int replicas, int sentinels, String masterName, RedisServerBuilder template) {
        if (sentinels < 1) {
            throw new IllegalArgumentException("a sentinel group needs at least one sentinel, got " + sentinels);
        }
        if (template.tls != null) {
            throw new IllegalArgumentException("sentinels for TLS servers are not supported by the test kit");
        }
        RedisGroup servers = RedisGroup.masterWithReplicas(replicas, template);
        List<RedisSentinel> started = new ArrayList<>();
        try {
            RedisSentinel.Builder b = RedisSentinel.builder(masterName, servers.master()).quorum(sentinels / 2 + 1);
            started.addAll(Processes.startAll(sentinels, b::start, "coordis-sentinel-start", RedisSentinel::close));
            SentinelGroup group = new SentinelGroup(servers, started, masterName);
            group.awaitDiscovery(replicas, DISCOVERY_TIMEOUT);
            return group;
        } catch (RuntimeException e) {
            closeQuietly(started, servers, e);
            throw e;
        }
    }

    /**
     * The name the master is monitored under.
     *
     * @return the name
     */
    public String masterName() {
        return masterName;
    }

    /**
     * The master and replicas as started (the first server is the initial master).
     *
     * @return the data servers
     */
    public RedisGroup redis() {
        return servers;
    }

    /**
     * All data servers, the initial master first.
     *
     * @return the data servers
     */
    public List<RedisServer> servers() {
        return servers.servers();
    }

    /**
     * The server started as master, whatever its role now.
     *
     * @return the initial master
     */
    public RedisServer initialMaster() {
        return servers.master();
    }

    /**
     * The server the sentinels currently report as master (asking the first running, non-paused
     * sentinel). Right after the master died and before the failover, that is still the dead one.
     *
     * @return the reported master
     * @throws IllegalStateException if no sentinel answers or it names a server outside the group
     */
    public RedisServer master() {
        String address = null;
        RuntimeException last = null;
        for (RedisSentinel s : sentinels) {
            if (s.isRunning() && !s.isPaused()) {
                try {
                    address = s.masterAddress().orElse(null);
                    break;
                } catch (RuntimeException e) {
                    last = e;
                }
            }
        }
        if (address == null) {
            throw new IllegalStateException("no sentinel of " + this + " reports a master", last);
        }
        String reported = address;
        return serverAt(reported).orElseThrow(() -> new IllegalStateException(
                "sentinels report master " + masterName + " at an address outside the group: " + reported));
    }

    /**
     * The data servers other than {@link #master()}, running or not.
     *
     * @return the other data servers
     */
    public List<RedisServer> replicas() {
        RedisServer m = master();
        return servers().stream().filter(s -> s != m).toList();
    }

    /**
     * The sentinels.
     *
     * @return the sentinels
     */
    public List<RedisSentinel> sentinels() {
        return sentinels;
    }

    /**
     * The {@code i}-th sentinel (0-based).
     *
     * @param i the sentinel's index
     * @return the sentinel
     */
    public RedisSentinel sentinel(int i) {
        return sentinels.get(i);
    }

    /**
     * {@code redis-sentinel://127.0.0.1:P1,127.0.0.1:P2,...#MASTER} over all sentinels, with
     * {@code :PASSWORD@} if the data servers need one (the sentinels themselves need none).
     *
     * @return the URI
     */
    public String sentinelUri() {
        String hosts = sentinels.stream().map(RedisSentinel::address).collect(Collectors.joining(","));
        String auth = initialMaster().password().map(pw -> ":" + percentEncode(pw) + "@").orElse("");
        return "redis-sentinel://" + auth + hosts + "#" + masterName;
    }

    /**
     * Blocks until every running, non-paused sentinel reports the same master, that master is a
     * server of this group satisfying {@code condition}, and it answers {@code ROLE} as master, i.e.
     * clients asking any sentinel now reach a writable master. Polls every 50 ms.
     *
     * @param condition what the master must satisfy
     * @param timeout   how long to wait
     * @return the master
     * @throws IllegalStateException on timeout, with what each sentinel reported
     */
    public RedisServer awaitMaster(Predicate<RedisServer> condition, Duration timeout) {
        Objects.requireNonNull(condition, "condition");
        long deadline = System.nanoTime() + timeout.toNanos();
        String seen = "nothing yet";
        while (true) {
            List<String> reports = new ArrayList<>();
            String agreed = null;
            boolean agree = true;
            for (RedisSentinel s : sentinels) {
                if (!s.isRunning() || s.isPaused()) {
                    continue;
                }
                String a;
                try {
                    a = s.masterAddress().orElse("unknown");
                } catch (RuntimeException e) {
                    a = "error: " + e.getMessage();
                }
                reports.add(s.address() + " -> " + a);
                if (agreed == null) {
                    agreed = a;
                } else if (!agreed.equals(a)) {
                    agree = false;
                }
            }
            seen = reports.toString();
            if (agree && agreed != null) {
                Optional<RedisServer> m = serverAt(agreed);
                if (m.isPresent() && condition.test(m.get()) && isWritableMaster(m.get())) {
                    return m.get();
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("sentinels of " + masterName + " did not agree on a matching, writable "
                        + "master within " + timeout + "; last reports: " + seen);
            }
            ProcessSupport.sleep(Duration.ofMillis(50));
        }
    }

    /**
     * Blocks until the sentinels report a master other than {@code oldMaster} (see {@link #awaitMaster}).
     *
     * @param oldMaster the master before the failover
     * @param timeout   how long to wait
     * @return the new master
     */
    public RedisServer awaitFailover(RedisServer oldMaster, Duration timeout) {
        return awaitMaster(s -> s != oldMaster, timeout);
    }

    /**
     * Asks the first running sentinel to fail over now ({@code SENTINEL FAILOVER}), without waiting for
     * the master to be down. Use {@link #awaitFailover} to wait for the outcome.
     */
    public void failover() {
        RedisSentinel s = sentinels.stream().filter(x -> x.isRunning() && !x.isPaused()).findFirst()
                .orElseThrow(() -> new IllegalStateException("no running sentinel"));
        s.command("SENTINEL", "FAILOVER", masterName);
    }

    /** Closes the sentinels, then the servers. Idempotent. */
    @Override
    public void close() {
        closeQuietly(sentinels, servers, null);
    }

    @Override
    public String toString() {
        return "SentinelGroup[" + masterName + ", servers " + servers().stream().map(RedisServer::address).toList()
                + ", sentinels " + sentinels.stream().map(RedisSentinel::address).toList() + "]";
    }

    private void awaitDiscovery(int replicas, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisSentinel s : sentinels) {
            while (true) {
                Map<String, String> state = s.masterState();
                // a replica counts once the sentinel has read its INFO over its own link (flags plain
                // "slave", link to the master "ok"): before that, SENTINEL FAILOVER answers NOGOODSLAVE
                List<Map<String, String>> known = s.replicaStates();
                if (String.valueOf(replicas).equals(state.get("num-slaves"))
                        && String.valueOf(sentinels.size() - 1).equals(state.get("num-other-sentinels"))
                        && known.size() == replicas
                        && known.stream().allMatch(r -> "slave".equals(r.get("flags"))
                                && "ok".equals(r.get("master-link-status")))) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("sentinel " + s.address() + " did not discover " + replicas
                            + " replicas and " + (sentinels.size() - 1) + " other sentinels within " + timeout
                            + " (it knows " + state.get("num-slaves") + " and " + state.get("num-other-sentinels")
                            + "; replicas " + s.replicaStates().stream()
                                    .map(r -> r.get("ip") + ":" + r.get("port") + " " + r.get("flags")
                                            + " link " + r.get("master-link-status"))
                                    .toList() + ")");
                }
                ProcessSupport.sleep(Duration.ofMillis(50));
            }
        }
    }

    private Optional<RedisServer> serverAt(String address) {
        return servers().stream().filter(s -> s.address().equals(address)).findFirst();
    }

    private static boolean isWritableMaster(RedisServer s) {
        if (!s.isRunning() || s.isPaused()) {
            return false;
        }
        try {
            Object role = s.command("ROLE");
            return role instanceof List<?> l && !l.isEmpty() && "master".equals(l.get(0));
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void closeQuietly(List<RedisSentinel> sentinels, RedisGroup servers, RuntimeException primary) {
        RuntimeException failure = primary;
        for (RedisSentinel s : sentinels) {
            try {
                s.close();
            } catch (RuntimeException e) {
                failure = Processes.first(failure, e);
            }
        }
        try {
            servers.close();
        } catch (RuntimeException e) {
            failure = Processes.first(failure, e);
        }
        if (primary == null && failure != null) {
            throw failure;
        }
    }

    private static String percentEncode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
