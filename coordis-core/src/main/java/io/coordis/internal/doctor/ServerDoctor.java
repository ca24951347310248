package io.coordis.internal.doctor;

import io.coordis.CoordisException;
import io.coordis.RequiredCommands;
import io.coordis.doctor.Doctor;
import io.coordis.doctor.DoctorReport;
import io.coordis.doctor.Finding;
import io.coordis.doctor.NodeFacts;
import io.coordis.doctor.OldLayoutRemoval;
import io.coordis.internal.redis.AdminCommands;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@link Doctor} of a client: examines each of its nodes with {@code INFO}, {@code CONFIG GET}, the ACL
 * commands and {@code TIME} ({@link AclCheck} judges the user's rules), compares the nodes' clocks, and finds or
 * removes the old layout's keys with {@link OldLayout}. Thread-safe.
 */
public final class ServerDoctor implements Doctor {
    private final List<RedisNode> nodes;
    private final Namespace namespace;

    /**
     * The doctor of a client with {@code nodes} and {@code namespace}, under whose prefix (if any) the ACL check
     * also asks whether the user may touch the keys and channels.
     */
    public ServerDoctor(List<RedisNode> nodes, Namespace namespace) {
        this.nodes = List.copyOf(nodes);
        this.namespace = Objects.requireNonNull(namespace, "namespace");
    }

    @Override
    public DoctorReport examine(Optional<String> user, Duration maxSkew) throws InterruptedException {
        List<NodeFacts> facts = new ArrayList<>();
        List<Finding> findings = new ArrayList<>();
        for (RedisNode node : nodes) {
            facts.add(examine(node, user, findings));
        }
        List<ClockOffset> offsets = facts.stream().filter(f -> f.clockOffsetMicros().isPresent())
                .map(f -> new ClockOffset(f.address(), f.clockOffsetMicros().get(), f.clockUncertaintyMicros().orElse(0L)))
                .toList();
        Optional<Long> skew = Optional.empty();
        Optional<Long> uncertainty = Optional.empty();
        if (offsets.size() > 1) {
            ClockOffset behind = behind(offsets);
            ClockOffset ahead = ahead(offsets);
            skew = Optional.of(ahead.micros() - behind.micros());
            uncertainty = Optional.of(ahead.uncertaintyMicros() + behind.uncertaintyMicros());
            findings.add(clockFinding(offsets, maxSkew));
        }
        return new DoctorReport(facts, findings, skew, uncertainty);
    }

    @Override
    public List<Finding> oldLayout() throws InterruptedException {
        List<Finding> findings = new ArrayList<>();
        for (RedisNode node : nodes) {
            OldLayout.examine(node, namespace, findings);
        }
        return findings;
    }

    @Override
    public List<OldLayoutRemoval> removeOldLayout() throws InterruptedException {
        List<OldLayoutRemoval> done = new ArrayList<>();
        for (RedisNode node : nodes) {
            OldLayout.Removed removed = OldLayout.remove(node, namespace);
            done.add(new OldLayoutRemoval(node.address(), removed.removed(), removed.kept()));
        }
        return done;
    }

    private NodeFacts examine(RedisNode node, Optional<String> forUser, List<Finding> findings) throws InterruptedException {
        String at = node.address();
        Duration timeout = node.commandTimeout();
        AdminCommands admin = node.admin();
        Map<String, String> info = new HashMap<>();
        Optional<String> infoRefused = Optional.empty();
        for (String section : List.of("server", "replication", "memory", "persistence")) {
            try {
                info.putAll(node.await(admin.info(section), timeout));
            } catch (CoordisException e) {
                infoRefused = Optional.of(e.getMessage());
                break;
            }
        }
        Optional<String> version = Optional.ofNullable(info.get("redis_version"));
        Optional<String> role = Optional.ofNullable(info.get("role"));
        Optional<Integer> replicas = Optional.ofNullable(info.get("connected_slaves")).map(Integer::parseInt);
        Optional<String> link = Optional.ofNullable(info.get("master_link_status"));
        Optional<Long> maxmemory = Optional.ofNullable(info.get("maxmemory")).map(Long::parseLong);
        Optional<String> policy = Optional.ofNullable(info.get("maxmemory_policy"));
        Optional<Boolean> aof = Optional.ofNullable(info.get("aof_enabled")).map("1"::equals);
        if (infoRefused.isPresent()) {
            findings.add(new Finding(Finding.Severity.UNKNOWN, at, "server", "INFO was refused ("
                    + infoRefused.get() + "): version, role, eviction and persistence not checked",
                    "run the doctor as a user that may run INFO and CONFIG GET"));
        }
        Map<String, String> config = new HashMap<>();
        try {
            for (String parameter : List.of("appendfsync", "save", "maxmemory-policy", "min-replicas-to-write",
                    "min-replicas-max-lag")) { // one each: 6.2 takes one
                config.putAll(node.await(admin.configGet(parameter), timeout));
            }
        } catch (CoordisException e) {
            findings.add(new Finding(Finding.Severity.UNKNOWN, at, "persistence", "CONFIG GET was refused ("
                    + e.getMessage() + "): appendfsync and save rules not checked",
                    "run the doctor as a user that may run CONFIG GET"));
        }
        if (policy.isEmpty()) {
            policy = Optional.ofNullable(config.get("maxmemory-policy"));
        }
        Optional<String> fsync = Optional.ofNullable(config.get("appendfsync"));
        Optional<String> save = Optional.ofNullable(config.get("save"));

        version.ifPresent(v -> findings.add(versionFinding(at, v)));
        role.ifPresent(r -> findings.add(roleFinding(at, r, replicas, link)));
        if (role.filter("master"::equals).isPresent() && replicas.orElse(0) > 0
                && config.containsKey("min-replicas-to-write")) {
            findings.add(replicationFinding(at, replicas.get(), Integer.parseInt(config.get("min-replicas-to-write")),
                    Integer.parseInt(config.getOrDefault("min-replicas-max-lag", "10"))));
        }
        policy.ifPresent(p -> findings.add(evictionFinding(at, p, maxmemory.orElse(-1L))));
        aof.ifPresent(a -> findings.add(persistenceFinding(at, a, fsync, save, info.get("rdb_last_bgsave_status"))));

        AclCheck.Outcome acl = AclCheck.examine(node, forUser, namespace, findings);

        // clock
        Optional<Long> offset = Optional.empty();
        Optional<Long> uncertainty = Optional.empty();
        try {
            long t0 = nowMicros();
            long server = node.await(admin.timeMicros(), timeout);
            long t1 = nowMicros();
            offset = Optional.of(server - (t0 + t1) / 2);
            uncertainty = Optional.of((t1 - t0) / 2);
        } catch (CoordisException e) {
            findings.add(new Finding(Finding.Severity.UNKNOWN, at, "clock", "TIME was refused (" + e.getMessage() + ")",
                    ""));
        }
        return new NodeFacts(at, version, role, replicas, link, maxmemory, policy, aof, fsync, save, acl.user(),
                acl.method(), acl.missingRequired(), acl.missingOptional(), acl.keys(), acl.channels(), offset, uncertainty);
    }

    private static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /**
     * One node's clock as measured around one {@code TIME}.
     *
     * @param node              {@code host:port}
     * @param micros            the node's clock minus the client's
     * @param uncertaintyMicros half the round trip of that {@code TIME}: how far off {@code micros} may be
     */
    record ClockOffset(String node, long micros, long uncertaintyMicros) {
    }

    private static ClockOffset behind(List<ClockOffset> offsets) {
        return offsets.stream().min(Comparator.comparingLong(ClockOffset::micros)).orElseThrow();
    }

    private static ClockOffset ahead(List<ClockOffset> offsets) {
        return offsets.stream().max(Comparator.comparingLong(ClockOffset::micros)).orElseThrow();
    }

    /**
     * The clock finding about all nodes together ({@code "*"}): WARN when the clocks furthest apart differ by
     * more than {@code maxSkew} even after allowing for how uncertain both measurements are, OK otherwise.
     *
     * @param offsets the measured offsets, at least two
     */
    static Finding clockFinding(List<ClockOffset> offsets, Duration maxSkew) {
        if (offsets.size() < 2) {
            throw new IllegalArgumentException("clock skew needs at least two nodes, got " + offsets.size());
        }
        ClockOffset behind = behind(offsets);
        ClockOffset ahead = ahead(offsets);
        long skew = ahead.micros() - behind.micros();
        long uncertainty = ahead.uncertaintyMicros() + behind.uncertaintyMicros();
        String text = String.format(Locale.ROOT, "clocks of %d nodes differ by at most %.1f ms (± %.1f ms), %s ahead of %s",
                offsets.size(), skew / 1000.0, uncertainty / 1000.0, ahead.node(), behind.node());
        if (skew - uncertainty > maxSkew.toNanos() / 1000) {
            return new Finding(Finding.Severity.WARN, "*", "clock", text + "; more than " + maxSkew.toMillis() + " ms",
                    "synchronise the nodes' clocks (NTP); Redlock leases assume drift within 1% of the TTL");
        }
        return new Finding(Finding.Severity.OK, "*", "clock", text, "");
    }

    static Finding versionFinding(String at, String version) {
        int[] v = new int[3];
        String[] parts = version.split("\\.");
        for (int i = 0; i < Math.min(3, parts.length); i++) {
            try {
                v[i] = Integer.parseInt(parts[i].replaceAll("\\D.*", ""));
            } catch (NumberFormatException e) {
                v[i] = 0;
            }
        }
        if (v[0] < 6 || (v[0] == 6 && v[1] < 2)) {
            return new Finding(Finding.Severity.FAIL, at, "version", "Redis " + version
                    + ": Coordis needs 6.2 or later (LMOVE and BLMOVE)", "upgrade to Redis 6.2 or later");
        }
        return new Finding(Finding.Severity.OK, at, "version", "Redis " + version, "");
    }

    static Finding roleFinding(String at, String role, Optional<Integer> replicas, Optional<String> link) {
        if (role.equals("master")) {
            int n = replicas.orElse(0);
            return new Finding(Finding.Severity.OK, at, "role", n == 0 ? "master, no replicas"
                    : "master with " + n + " replica(s); replication is asynchronous: a failover may lose the latest "
                    + "lock grants and messages (see docs/safety.md)", "");
        }
        String linkText = link.map(l -> ", link to its master " + l).orElse("");
        Finding.Severity severity = link.filter("up"::equals).isPresent() ? Finding.Severity.WARN : Finding.Severity.FAIL;
        return new Finding(severity, at, "role", "a replica" + linkText + ": writes are refused (READONLY)",
                "point Coordis at the master, or at Sentinel (redis-sentinel://...) so it follows failovers");
    }

    /** The largest {@code min-replicas-max-lag} that passes: Redis's default. */
    static final int MAX_REPLICA_LAG_SECONDS = 10;

    /**
     * On a master with {@code replicas} connected replicas: whether it stops taking writes once cut off from them
     * ({@code min-replicas-to-write} replicas with at most {@code min-replicas-max-lag} seconds of lag).
     */
    static Finding replicationFinding(String at, int replicas, int minReplicas, int maxLag) {
        String fix = "CONFIG SET min-replicas-to-write 1 and CONFIG SET min-replicas-max-lag "
                + MAX_REPLICA_LAG_SECONDS + " (and the same in redis.conf)";
        if (minReplicas <= 0) {
            return new Finding(Finding.Severity.WARN, at, "replication", "master with " + replicas + " replica(s) but "
                    + "min-replicas-to-write 0: a master cut off from its replicas keeps granting locks, terms and "
                    + "messages that the failover then loses", fix);
        }
        if (maxLag > MAX_REPLICA_LAG_SECONDS || maxLag <= 0) {
            return new Finding(Finding.Severity.WARN, at, "replication", "min-replicas-to-write " + minReplicas
                    + " with min-replicas-max-lag " + maxLag + ": a master cut off from its replicas keeps taking "
                    + "writes for " + (maxLag <= 0 ? "an unbounded time" : maxLag + " s") + ", which the failover "
                    + "then loses", fix);
        }
        return new Finding(Finding.Severity.OK, at, "replication", "min-replicas-to-write " + minReplicas
                + ", min-replicas-max-lag " + maxLag + ": a master cut off from its replicas refuses writes within "
                + maxLag + " s", "");
    }

    static Finding evictionFinding(String at, String policy, long maxmemory) {
        if (policy.equals("noeviction")) {
            return new Finding(Finding.Severity.OK, at, "eviction", "maxmemory-policy noeviction: when full, Redis "
                    + "refuses writes and Coordis reports it; nothing is dropped", "");
        }
        String limit = maxmemory == 0 ? " (no maxmemory set yet: the policy applies once one is)" : "";
        return new Finding(Finding.Severity.WARN, at, "eviction", "maxmemory-policy " + policy + limit
                + ": Redis may evict lock, election and queue keys silently, and two clients then hold one lock",
                "CONFIG SET maxmemory-policy noeviction, and the same in redis.conf");
    }

    static Finding persistenceFinding(String at, boolean aof, Optional<String> fsync, Optional<String> save,
                                      String lastSave) {
        if (aof) {
            String f = fsync.orElse("unknown");
            if (f.equals("always")) {
                return new Finding(Finding.Severity.OK, at, "persistence", "append-only file, fsync always: a crash "
                        + "loses nothing acknowledged", "");
            }
            if (f.equals("no")) {
                return new Finding(Finding.Severity.WARN, at, "persistence", "append-only file with appendfsync no: a "
                        + "crash may lose the last ~30 s of locks, terms and messages",
                        "CONFIG SET appendfsync everysec (or always)");
            }
            return new Finding(Finding.Severity.OK, at, "persistence", "append-only file, fsync " + f
                    + ": a crash may lose up to a second of writes (a restarted Redlock node stays out for a TTL)", "");
        }
        boolean snapshots = save.map(s -> !s.isBlank()).orElse(false);
        String bad = "err".equals(lastSave) ? "; the last snapshot FAILED" : "";
        String loss = snapshots ? "written since the last snapshot" : "(all of them)";
        return new Finding(Finding.Severity.WARN, at, "persistence", (snapshots ? "snapshots only (save " + save.get()
                + ")" : "no persistence") + bad + ": a restart forgets locks, fencing numbers, terms and queued messages "
                + loss, "CONFIG SET appendonly yes (appendfsync everysec, or always for queues that must lose nothing)");
    }
}
