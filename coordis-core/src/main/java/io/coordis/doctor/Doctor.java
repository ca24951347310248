package io.coordis.doctor;

import io.coordis.CoordisException;
import io.coordis.RequiredCommands;
import io.coordis.internal.Keys;
import io.coordis.internal.Wiring;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks whether the Redis servers a client talks to are set up the way Coordis needs them, and says what to
 * change when not: server version and role, replication, {@code maxmemory-policy} (eviction silently drops
 * locks), persistence, whether the ACL user may run every command Coordis sends ({@link RequiredCommands}),
 * and, with several nodes (Redlock), how far their clocks are apart.
 *
 * <p>Obtained from {@link io.coordis.Coordis#doctor()}. Read-only: it sends {@code INFO}, {@code CONFIG GET},
 * {@code ACL WHOAMI}, {@code ACL GETUSER}, {@code ACL CAT} and {@code TIME}, and nothing that writes. What the
 * user may not read becomes an {@link Finding.Severity#UNKNOWN} finding, never an exception. Thread-safe.
 *
 * <p>Permissions are judged from the user's rules ({@code ACL GETUSER}, which needs rights that application
 * users usually lack: run the doctor with an administrator's URL to check an application user's rules by
 * name, see {@link #examine(Optional)}).
 */
public final class Doctor {
    /** Default largest clock difference between Redlock nodes before a warning: 1% of a 10 s TTL. */
    public static final Duration DEFAULT_MAX_SKEW = Duration.ofMillis(100);

    private final List<RedisNode> nodes;
    private final String keyPrefix;

    static {
        Wiring.provide(Doctor.class, w -> new Doctor(w.nodes(), w.keyPrefix()));
    }

    /**
     * Built by {@link io.coordis.Coordis#doctor()} through {@link Wiring}. With a key prefix (empty for none),
     * the ACL check also asks whether the user may touch the keys and channels under it.
     */
    Doctor(List<RedisNode> nodes, String keyPrefix) {
        this.nodes = List.copyOf(nodes);
        this.keyPrefix = java.util.Objects.requireNonNull(keyPrefix, "key prefix");
    }

    /** {@link #examine(Optional, Duration)} for the connected user with the default skew limit. */
    public DoctorReport examine() throws InterruptedException {
        return examine(Optional.empty(), DEFAULT_MAX_SKEW);
    }

    /** {@link #examine(Optional, Duration)} with the default skew limit. */
    public DoctorReport examine(Optional<String> user) throws InterruptedException {
        return examine(user, DEFAULT_MAX_SKEW);
    }

    /**
     * Examines every node.
     *
     * @param user    whose permissions to check; empty for the user this client runs as
     * @param maxSkew largest clock difference between nodes before a warning
     */
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

    private NodeFacts examine(RedisNode node, Optional<String> forUser, List<Finding> findings) throws InterruptedException {
        String at = node.address();
        Duration timeout = node.commandTimeout();
        Map<String, String> info = new HashMap<>();
        Optional<String> infoRefused = Optional.empty();
        for (String section : List.of("server", "replication", "memory", "persistence")) {
            try {
                info.putAll(node.await(node.info(section), timeout));
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
            for (String parameter : List.of("appendfsync", "save", "maxmemory-policy")) { // one each: 6.2 takes one
                config.putAll(node.await(node.configGet(parameter), timeout));
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
        policy.ifPresent(p -> findings.add(evictionFinding(at, p, maxmemory.orElse(-1L))));
        aof.ifPresent(a -> findings.add(persistenceFinding(at, a, fsync, save, info.get("rdb_last_bgsave_status"))));

        // ACL
        Optional<String> user = forUser;
        if (user.isEmpty()) {
            try {
                user = Optional.of(node.await(node.aclWhoami(), timeout));
            } catch (CoordisException e) {
                // checked below
            }
        }
        String method;
        List<String> missingRequired = new ArrayList<>();
        List<String> missingOptional = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        List<String> channels = new ArrayList<>();
        if (user.isEmpty()) {
            method = "not checked: ACL WHOAMI was refused";
            findings.add(new Finding(Finding.Severity.UNKNOWN, at, "acl", "cannot tell which user this connection is"
                    + " (ACL WHOAMI refused), so its permissions were not checked",
                    "run the doctor as an administrator with --user NAME to check that user"));
        } else {
            try {
                List<Object> reply = node.await(node.aclGetuser(user.get()), timeout);
                if (reply == null || reply.isEmpty()) {
                    throw new CoordisException(at, "no such user", null);
                }
                Object rules = AclRules.field(reply, "commands");
                Map<String, Set<String>> categories = new HashMap<>();
                AclRules acl = new AclRules(String.valueOf(rules), name -> categories.computeIfAbsent(name, n -> {
                    try {
                        return new HashSet<>(node.awaitUninterruptibly(node.aclCat(n), timeout));
                    } catch (CoordisException e) {
                        return Set.of();
                    }
                }));
                for (String c : RequiredCommands.required()) {
                    if (!acl.allows(c)) {
                        missingRequired.add(c);
                    }
                }
                for (String c : RequiredCommands.names(EnumSet.of(RequiredCommands.Use.OPTIONAL))) {
                    if (!acl.allows(c)) {
                        missingOptional.add(c);
                    }
                }
                keys.addAll(patterns(AclRules.field(reply, "keys"), "~", flags(reply).contains("allkeys")));
                channels.addAll(patterns(AclRules.field(reply, "channels"), "&", flags(reply).contains("allchannels")));
                method = "ACL GETUSER " + user.get();
                findings.add(aclFinding(at, user.get(), missingRequired, missingOptional, keys, channels));
                prefixFinding(at, user.get(), keyPrefix, keys, channels).ifPresent(findings::add);
            } catch (CoordisException e) {
                method = "not checked: ACL GETUSER " + user.get() + " failed: " + e.getMessage();
                findings.add(new Finding(Finding.Severity.UNKNOWN, at, "acl", "cannot read the rules of user '"
                        + user.get() + "' (" + e.getMessage() + ")", "run the doctor with an administrator's URL and"
                        + " --user " + user.get() + " to check them; the commands needed are in RequiredCommands"));
            }
        }

        // clock
        Optional<Long> offset = Optional.empty();
        Optional<Long> uncertainty = Optional.empty();
        try {
            long t0 = nowMicros();
            long server = node.await(node.timeMicros(), timeout);
            long t1 = nowMicros();
            offset = Optional.of(server - (t0 + t1) / 2);
            uncertainty = Optional.of((t1 - t0) / 2);
        } catch (CoordisException e) {
            findings.add(new Finding(Finding.Severity.UNKNOWN, at, "clock", "TIME was refused (" + e.getMessage() + ")",
                    ""));
        }
        return new NodeFacts(at, version, role, replicas, link, maxmemory, policy, aof, fsync, save, user, method,
                missingRequired, missingOptional, keys, channels, offset, uncertainty);
    }

    private static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    private static Set<String> flags(List<Object> reply) {
        Set<String> flags = new HashSet<>();
        if (AclRules.field(reply, "flags") instanceof List<?> list) {
            list.forEach(f -> flags.add(String.valueOf(f)));
        }
        return flags;
    }

    /** Key or channel patterns as Redis 7 (one string, {@code "~a:* %R~b:*"}) or 6.2 (a list) reports them. */
    private static List<String> patterns(Object field, String prefix, boolean all) {
        List<String> out = new ArrayList<>();
        if (all) {
            out.add(prefix + "*");
        }
        if (field instanceof List<?> list) {
            list.forEach(p -> out.add(prefix + p));
        } else if (field != null && !String.valueOf(field).isBlank()) {
            for (String p : String.valueOf(field).trim().split("\\s+")) {
                out.add(p);
            }
        }
        return out;
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

    /**
     * With a client key prefix: whether the user's key and channel patterns cover a name under the prefix and the
     * keys and channels Coordis derives from it ({@code ~P* ~{P* &P* &{P*}); empty without a prefix.
     */
    static Optional<Finding> prefixFinding(String at, String user, String prefix, List<String> keys,
                                           List<String> channels) {
        if (prefix.isEmpty()) {
            return Optional.empty();
        }
        String name = prefix + "coordis-doctor";
        List<String> missing = new ArrayList<>();
        if (!covered(keys, '~', name)) {
            missing.add("~" + prefix + "*");
        }
        if (!covered(keys, '~', Keys.derived(name, "fence"))) {
            missing.add("~{" + prefix + "*");
        }
        if (!covered(channels, '&', name)) {
            missing.add("&" + prefix + "*");
        }
        if (!covered(channels, '&', Keys.derived(name, "released"))) {
            missing.add("&{" + prefix + "*");
        }
        if (missing.isEmpty()) {
            return Optional.of(new Finding(Finding.Severity.OK, at, "acl-prefix", "user '" + user + "' may read and "
                    + "write the keys and channels under this client's key prefix '" + prefix + "'", ""));
        }
        return Optional.of(new Finding(Finding.Severity.FAIL, at, "acl-prefix", "user '" + user + "' may not touch "
                + "all keys and channels under this client's key prefix '" + prefix + "' (" + scope(keys, channels) + "; missing "
                + String.join(" ", missing) + ")", "ACL SETUSER " + user + " " + String.join(" ", missing)));
    }

    /** A user's key and channel patterns as findings show them: {@code keys ~a:* ~{a:*, channels &a:*}. */
    private static String scope(List<String> keys, List<String> channels) {
        return "keys " + (keys.isEmpty() ? "none" : String.join(" ", keys)) + ", channels "
                + (channels.isEmpty() ? "none" : String.join(" ", channels));
    }

    /** Whether a pattern of {@code patterns} ({@code ~p}, {@code %RW~p}, {@code &p}) gives full access to {@code name}. */
    private static boolean covered(List<String> patterns, char kind, String name) {
        for (String p : patterns) {
            String glob;
            if (p.startsWith(String.valueOf(kind))) {
                glob = p.substring(1);
            } else if (kind == '~' && p.startsWith("%") && p.indexOf('~') > 0) {
                String perms = p.substring(1, p.indexOf('~')).toUpperCase(java.util.Locale.ROOT);
                if (!(perms.contains("R") && perms.contains("W"))) {
                    continue; // read-only or write-only keys are not enough
                }
                glob = p.substring(p.indexOf('~') + 1);
            } else {
                continue;
            }
            try {
                if (io.coordis.inspect.Glob.of(glob).matches(name)) {
                    return true;
                }
            } catch (IllegalArgumentException e) {
                // a pattern this check cannot read: it does not count
            }
        }
        return false;
    }

    static Finding aclFinding(String at, String user, List<String> missing, List<String> optional, List<String> keys,
                              List<String> channels) {
        String scope = scope(keys, channels);
        if (!missing.isEmpty()) {
            return new Finding(Finding.Severity.FAIL, at, "acl", "user '" + user + "' may not run " + missing.size()
                    + " command(s) Coordis needs: " + String.join(" ", missing) + " (" + scope + ")",
                    "ACL SETUSER " + user + " " + String.join(" ", missing.stream().map(c -> "+" + c).toList()));
        }
        if (keys.isEmpty()) {
            return new Finding(Finding.Severity.FAIL, at, "acl", "user '" + user + "' may run every command Coordis "
                    + "needs but may touch no key (" + scope + ")", "ACL SETUSER " + user + " ~PREFIX* ~{PREFIX*");
        }
        String opt = optional.isEmpty() ? "" : "; without the optional " + String.join(" ", optional)
                + " (see RequiredCommands.Use.OPTIONAL)";
        return new Finding(optional.isEmpty() ? Finding.Severity.OK : Finding.Severity.WARN, at, "acl", "user '" + user
                + "' may run every command Coordis needs (" + scope + ")" + opt,
                optional.isEmpty() ? "" : "ACL SETUSER " + user + " " + String.join(" ", optional.stream().map(c -> "+" + c).toList()));
    }
}
