package io.coordis.inspect;

import io.coordis.AccessDeniedException;
import io.coordis.CoordisException;
import io.coordis.WrongTypeException;
import io.coordis.internal.Keys;
import io.coordis.internal.Wiring;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what Coordis objects exist and their state — locks, elections, queues and signals — for operators
 * and monitoring: the library side of {@code coordis ls} and {@code coordis inspect}. Obtained from
 * {@code Coordis.inspector()}; reads only, never changes a key.
 *
 * <h2>How objects are found: SCAN, not a registry</h2>
 * Listing walks the keyspace with {@code SCAN} (with {@code MATCH}, a {@code TYPE} filter and
 * {@code COUNT 1000}; never {@code KEYS}), and lists channels with {@code PUBSUB CHANNELS}. A registry of
 * names that Coordis writes on every acquire would be cheaper to list, but it cannot show what other clients
 * made — a lock taken with a plain {@code SET k v NX PX} by redis-py, a queue fed by a plain {@code LPUSH} —
 * and those are exactly the objects an operator needs to see when two languages share a lock; it would also
 * go stale when a holder dies. SCAN costs a walk over the whole keyspace in small steps, which is cheap on
 * a Redis kept for coordination (as it should be) and slow on a large data Redis. Each object found is then
 * read with one read-only script (one atomic step per object and node).
 *
 * <p>What is shown as what: see {@link StringRead} for how a string key is told to be a lock, a legacy lock
 * or an election (in short: by the details Coordis keeps beside it; a short foreign value with a TTL is taken
 * for another client's lock with an unknown holder — a guess, as a cached value looks the same). Lists that
 * are not Coordis' own derived keys are queues; a queue with registered consumers is shown even while empty.
 * Channels with subscribers and latched events are signals. Coordis' own derived keys and channels
 * ({@code {name}:fence}, {@code {name}:released}, ...) are never shown as objects of their own. Counter
 * elections ({@code INCR} + {@code EXPIRE}) keep no details and look like a lock whose value is a number.
 *
 * <p>Nodes: with several nodes (Redlock), locks are read on every node, with each node's view in
 * {@link LockState#perNode()}; a node that fails is reported there, and the call fails only when every node
 * fails. Elections, queues and signals live on one Redis and are read on the first node.
 *
 * <p>Tenants: an ACL user limited to a key prefix still sees every key name in {@code SCAN} and every
 * channel in {@code PUBSUB CHANNELS} (Redis does not filter those by the user's patterns), but may not read
 * the keys. Listings leave out the objects this user may not read (logged at debug), so one tenant's
 * {@code ls} shows its own locks, elections and queues only; the channel list still names other tenants'
 * channels with subscribers. Asking for one object by name that the user may not read throws
 * {@link AccessDeniedException}.
 *
 * <p>Thread-safe. Each method blocks for a few round trips (at most the command timeout each) and throws
 * {@link CoordisException} subclasses when Redis fails; {@link InterruptedException} when interrupted.
 */
public final class Inspector {
    static final LuaScript QUEUE = LuaScript.load(Inspector.class, "queue-state.lua");
    static final LuaScript CONSUMER = LuaScript.load(Inspector.class, "consumer-state.lua");
    /** How many audit entries {@link #lock} reads, newest first (the writer keeps at most 100). */
    public static final int AUDIT_ENTRIES = 100;
    private static final long SCAN_COUNT = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(Inspector.class);

    private final List<RedisNode> nodes;

    static {
        Wiring.provide(Inspector.class, w -> new Inspector(w.nodes()));
    }

    /** Built by {@code Coordis} through {@link Wiring}. */
    Inspector(List<RedisNode> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one Redis node is needed");
        }
        this.nodes = List.copyOf(nodes);
    }

    /**
     * The held locks whose names match {@code glob}, by name. Audit entries are not read here (see
     * {@link #lock}).
     *
     * @throws IllegalArgumentException when {@code glob} is malformed (see {@link Glob#of})
     */
    public List<LockState> locks(String glob) throws InterruptedException {
        Glob match = Glob.of(glob);
        TreeSet<String> names = new TreeSet<>();
        CoordisException failure = null;
        int failed = 0;
        for (RedisNode node : nodes) {
            try {
                scan(node, match.pattern(), "string").stream().filter(k -> !KeyLayout.isDerived(k)).forEach(names::add);
            } catch (CoordisException e) {
                failure = failure == null ? e : failure;
                failed++;
            }
        }
        if (failed == nodes.size()) {
            throw failure;
        }
        List<String> list = List.copyOf(names);
        List<List<Outcome>> reads = readStrings(list, 0, true);
        Map<String, Long> waiters = numsub(list.stream().map(n -> Keys.derived(n, "released")).toList(), true);
        List<LockState> locks = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String name = list.get(i);
            List<Outcome> outcomes = reads.get(i);
            if (!isLock(outcomes)) {
                continue;
            }
            LockState state = lockState(name, outcomes, waiters.getOrDefault(Keys.derived(name, "released"), 0L));
            if (state.held()) {
                locks.add(state);
            }
        }
        return locks;
    }

    /**
     * Everything about the lock {@code name}: holder, TTL, fencing number and counter, waiters, each node's
     * view, and the last {@value #AUDIT_ENTRIES} forced unlocks. A free lock that Coordis has used (it has a
     * fencing counter or audit entries) is returned with {@link LockState#held()} false. Asked by name, any
     * string key is read as a lock, also one that {@link #locks} leaves out as not lock-like (no TTL).
     *
     * @return empty when nothing is known about {@code name} on any node
     * @throws WrongTypeException       when the key holds another Redis type, or is an election
     * @throws IllegalArgumentException when the name is blank
     */
    public Optional<LockState> lock(String name) throws InterruptedException {
        checkName(name, "lock");
        List<Outcome> outcomes = readStrings(List.of(name), AUDIT_ENTRIES, false).get(0);
        for (Outcome o : outcomes) {
            if (o.read != null && !o.read.isString()) {
                throw wrongType(o.node, name, o.read.type(), "lock");
            }
            if (o.read != null && o.read.kind() == StringRead.Kind.ELECTION && o.read.fence().isEmpty()) {
                throw wrongType(o.node, name, "election", "lock");
            }
        }
        boolean known = outcomes.stream().anyMatch(o -> o.read != null && (o.read.value() != null
                || o.read.fence().isPresent() || !o.read.audit().isEmpty()));
        if (!known) {
            return Optional.empty();
        }
        long waiters = numsub(List.of(Keys.derived(name, "released")), true).getOrDefault(Keys.derived(name, "released"), 0L);
        return Optional.of(lockState(name, outcomes, waiters));
    }

    /**
     * The elections with a leader whose names match {@code glob}, by name (read on the first node).
     *
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    public List<ElectionState> elections(String glob) throws InterruptedException {
        Glob match = Glob.of(glob);
        RedisNode node = nodes.get(0);
        List<String> names = scan(node, match.pattern(), "string").stream().filter(k -> !KeyLayout.isDerived(k))
                .sorted().toList();
        List<StringRead> reads = readStrings(node, names, 0, true);
        Map<String, Long> observers = numsub(names.stream().map(n -> Keys.derived(n, "changed")).toList(), false);
        List<ElectionState> elections = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (reads.get(i) != null && reads.get(i).kind() == StringRead.Kind.ELECTION) {
                elections.add(electionState(names.get(i), reads.get(i), observers));
            }
        }
        return elections;
    }

    /**
     * The election {@code name}: its leader, term, TTL and term counter; a leaderless election that has a
     * term counter is returned with an empty leader.
     *
     * @return empty when nothing is known about {@code name}
     * @throws WrongTypeException       when the key holds another Redis type, or is a lock
     * @throws IllegalArgumentException when the name is blank
     */
    public Optional<ElectionState> election(String name) throws InterruptedException {
        checkName(name, "election");
        RedisNode node = nodes.get(0);
        StringRead read = readStrings(node, List.of(name), 0, false).get(0);
        if (!read.isString()) {
            throw wrongType(node, name, read.type(), "election");
        }
        StringRead.Kind kind = read.kind();
        if (kind == StringRead.Kind.LOCK || kind == StringRead.Kind.LEGACY_LOCK) {
            if (read.term().isEmpty()) {
                throw wrongType(node, name, "lock", "election");
            }
        }
        if (read.value() == null && read.term().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(electionState(name, read, numsub(List.of(Keys.derived(name, "changed")), false)));
    }

    /**
     * The queues whose names match {@code glob}, by name: every list that is not one of Coordis' derived
     * keys, and every queue with registered consumers (read on the first node).
     *
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    public List<QueueState> queues(String glob) throws InterruptedException {
        Glob match = Glob.of(glob);
        RedisNode node = nodes.get(0);
        TreeSet<String> names = new TreeSet<>();
        scan(node, match.pattern(), "list").stream().filter(k -> !KeyLayout.isDerived(k)).forEach(names::add);
        for (String key : scan(node, "*:consumers", "hash")) {
            KeyLayout.derived(key).filter(d -> d.suffix().equals("consumers") && match.matches(d.base()))
                    .ifPresent(d -> names.add(d.base()));
        }
        List<QueueState> queues = new ArrayList<>();
        for (String name : names) {
            try {
                queueState(node, name).ifPresent(queues::add);
            } catch (AccessDeniedException e) {
                if (e.reason() != AccessDeniedException.Reason.KEY) {
                    throw e;
                }
                LOG.debug("listing queues: '{}' left out, this user may not read it", name);
            }
        }
        return queues;
    }

    /**
     * The queue {@code name}: depth, ages, in-flight and overdue messages, dead letters, and each consumer.
     *
     * @return empty when the list is absent and no consumer, dead letter or delayed message is known
     * @throws WrongTypeException       when the key holds another Redis type than a list
     * @throws IllegalArgumentException when the name is blank
     */
    public Optional<QueueState> queue(String name) throws InterruptedException {
        checkName(name, "queue");
        return queueState(nodes.get(0), name);
    }

    /**
     * The signals whose names match {@code glob}, by name: channels with at least one subscriber (except
     * Coordis' own lock and election channels) and latched events still kept (read on the first node).
     *
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    public List<SignalState> signals(String glob) throws InterruptedException {
        Glob match = Glob.of(glob);
        RedisNode node = nodes.get(0);
        TreeSet<String> names = new TreeSet<>();
        for (String channel : await(node, node.pubsubChannels(match.pattern()))) {
            if (KeyLayout.derived(channel).filter(d -> d.suffix().equals("released") || d.suffix().equals("changed"))
                    .isEmpty()) {
                names.add(channel);
            }
        }
        Map<String, String> events = new HashMap<>();
        for (String key : scan(node, "*:event", "string")) {
            KeyLayout.derived(key).filter(d -> d.suffix().equals("event") && match.matches(d.base()))
                    .ifPresent(d -> {
                        names.add(d.base());
                        events.put(d.base(), key);
                    });
        }
        List<String> list = List.copyOf(names);
        Map<String, Long> counts = numsub(list, false);
        List<SignalState> signals = new ArrayList<>();
        for (String name : list) {
            SignalState state = signalState(node, name, counts, events.containsKey(name), true);
            boolean onlyAnUnreadableEvent = state == null;
            if (onlyAnUnreadableEvent) {
                LOG.debug("listing signals: the latched event of '{}' left out, this user may not read it", name);
                continue;
            }
            signals.add(state);
        }
        return signals;
    }

    /**
     * The signal channel {@code name}: its subscribers and its latched event, if any. Every channel exists in
     * this sense (with 0 subscribers).
     *
     * @throws IllegalArgumentException when the name is blank
     */
    public SignalState signal(String name) throws InterruptedException {
        checkName(name, "signal");
        RedisNode node = nodes.get(0);
        return signalState(node, name, numsub(List.of(name), false), true, false);
    }

    /** All scripts the inspector runs, for the test that pins their SHAs. */
    static List<LuaScript> scripts() {
        return List.of(StringRead.SCRIPT, QUEUE, CONSUMER);
    }

    // ---- reading

    /** One node's read of one string key, or why it failed. */
    private record Outcome(RedisNode node, StringRead read, String error) {
    }

    private List<String> scan(RedisNode node, String match, String type) throws InterruptedException {
        Set<String> keys = new java.util.LinkedHashSet<>();
        String cursor = "0";
        do {
            RedisNode.KeyPage page = await(node, node.scan(cursor, match, type, SCAN_COUNT));
            keys.addAll(page.keys());
            cursor = page.cursor();
        } while (!cursor.equals("0"));
        return List.copyOf(keys);
    }

    /**
     * Reads {@code names} on every node; fails only when every node fails. Result: per name, per node. With
     * {@code skipDenied} (listings) a key this user's ACL may not read is an outcome without a read rather
     * than a failure, so one tenant's {@code ls} shows its own objects and leaves the others' out.
     */
    private List<List<Outcome>> readStrings(List<String> names, int auditEntries, boolean skipDenied)
            throws InterruptedException {
        List<List<Outcome>> out = new ArrayList<>();
        names.forEach(n -> out.add(new ArrayList<>()));
        CoordisException failure = null;
        int failed = 0;
        for (RedisNode node : nodes) {
            try {
                List<StringRead> reads = readStrings(node, names, auditEntries, skipDenied);
                for (int i = 0; i < names.size(); i++) {
                    out.get(i).add(new Outcome(node, reads.get(i), reads.get(i) == null ? "not readable by this user" : null));
                }
            } catch (CoordisException e) {
                failure = failure == null ? e : failure;
                failed++;
                for (List<Outcome> o : out) {
                    o.add(new Outcome(node, null, e.getMessage()));
                }
            }
        }
        if (failure != null && failed == nodes.size()) {
            throw failure;
        }
        return out;
    }

    /** One node's reads, in the order of {@code names}; with {@code skipDenied}, null for a key the ACL denies. */
    private List<StringRead> readStrings(RedisNode node, List<String> names, int auditEntries, boolean skipDenied)
            throws InterruptedException {
        List<CompletableFuture<Object>> sent = new ArrayList<>();
        for (String name : names) {
            sent.add(node.eval(StringRead.SCRIPT, StringRead.keys(name), StringRead.args(auditEntries)));
        }
        List<StringRead> reads = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            try {
                reads.add(StringRead.parse(await(node, sent.get(i))));
            } catch (AccessDeniedException e) {
                if (!skipDenied || e.reason() != AccessDeniedException.Reason.KEY) {
                    throw e; // a command this user may not run is a setup error, never an empty listing
                }
                LOG.debug("listing: '{}' left out, this user may not read it", names.get(i));
                reads.add(null);
            }
        }
        return reads;
    }

    /** Subscribers per channel: summed over every node ({@code allNodes}), or on the first node. */
    private Map<String, Long> numsub(List<String> channels, boolean allNodes) throws InterruptedException {
        Map<String, Long> counts = new HashMap<>();
        for (RedisNode node : allNodes ? nodes : nodes.subList(0, 1)) {
            try {
                await(node, node.pubsubNumsub(channels)).forEach((k, v) -> counts.merge(k, v, Long::sum));
            } catch (CoordisException e) {
                if (nodes.size() == 1) {
                    throw e;
                }
            }
        }
        return counts;
    }

    private static boolean isLock(List<Outcome> outcomes) {
        for (Outcome o : outcomes) {
            if (o.read != null && o.read.value() != null) {
                StringRead.Kind kind = o.read.kind();
                return kind == StringRead.Kind.LOCK || kind == StringRead.Kind.LEGACY_LOCK;
            }
        }
        return false;
    }

    private LockState lockState(String name, List<Outcome> outcomes, long waiters) {
        Map<String, Integer> votes = new LinkedHashMap<>();
        boolean legacy = false;
        for (Outcome o : outcomes) {
            if (o.read != null && o.read.value() != null && !o.read.legacyExpired()) {
                votes.merge(o.read.value(), 1, Integer::sum);
                legacy |= o.read.kind() == StringRead.Kind.LEGACY_LOCK;
            }
        }
        String token = votes.entrySet().stream().max(Comparator.comparingInt(Map.Entry::getValue))
                .map(Map.Entry::getKey).orElse(null);
        int agreeing = token == null ? 0 : votes.get(token);
        Map<String, String> holder = Map.of();
        long now = 0;
        Duration ttl = null;
        boolean noExpiry = false;
        long fencing = -1;
        long counter = -1;
        List<LockState.NodeState> perNode = new ArrayList<>();
        List<AuditEntry> audit = new ArrayList<>();
        boolean auditRead = false;
        for (Outcome o : outcomes) {
            if (o.read == null) {
                perNode.add(new LockState.NodeState(o.node.address(), Optional.empty(), Optional.empty(),
                        Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), false, Optional.of(o.error)));
                continue;
            }
            StringRead r = o.read;
            if (!auditRead) {
                r.audit().forEach(e -> audit.add(AuditEntry.parse(e)));
                auditRead = true;
            }
            counter = Math.max(counter, r.fence().orElse(-1));
            boolean agrees = token != null && token.equals(r.value());
            OptionalLong nodeFence = StringRead.number(r.holder(), "fence");
            if (agrees) {
                now = Math.max(now, r.nowMillis());
                if (holder.isEmpty() && !r.holder().isEmpty()) {
                    holder = r.holder();
                }
                Optional<Duration> left = r.ttl();
                if (left.isEmpty()) {
                    noExpiry = true;
                } else if (ttl == null || left.get().compareTo(ttl) < 0) {
                    ttl = left.get();
                }
                fencing = Math.max(fencing, nodeFence.orElse(-1));
            }
            perNode.add(new LockState.NodeState(o.node.address(), Optional.ofNullable(r.value()), r.ttl(),
                    Optional.ofNullable(r.holder().get("holder")), nodeFence, r.fence(), agrees, Optional.empty()));
        }
        Optional<String> holderId = Optional.ofNullable(holder.get("holder"));
        OptionalLong sinceMs = StringRead.number(holder, "since");
        Optional<Instant> since = sinceMs.isPresent() ? Optional.of(Instant.ofEpochMilli(sinceMs.getAsLong()))
                : Optional.empty();
        long nowMs = now;
        Optional<Duration> heldFor = sinceMs.isPresent() ? Optional.of(Duration.ofMillis(Math.max(0, nowMs - sinceMs.getAsLong())))
                : Optional.empty();
        OptionalLong leaseMs = StringRead.number(holder, "ttl");
        Optional<Duration> leaseTtl = leaseMs.isPresent() ? Optional.of(Duration.ofMillis(leaseMs.getAsLong()))
                : Optional.empty();
        Set<LockState.Flag> flags = EnumSet.noneOf(LockState.Flag.class);
        if (token != null) {
            if (holderId.isEmpty() && !legacy) {
                flags.add(LockState.Flag.FOREIGN);
            }
            if (noExpiry) {
                flags.add(LockState.Flag.NO_EXPIRY);
            }
            if (ttl != null) {
                long left = ttl.toMillis();
                long lease = leaseMs.orElse(-1);
                if (lease > 0 ? left * 4 < lease : left < 1000) {
                    flags.add(LockState.Flag.EXPIRING_SOON);
                }
                if (lease > 0 && left * 10 < lease * 6) {
                    flags.add(LockState.Flag.NOT_RENEWED);
                }
            }
            if (nodes.size() > 1 && agreeing < nodes.size()) {
                flags.add(LockState.Flag.NODES_DISAGREE);
            }
        }
        LockState.Mode mode = nodes.size() > 1 ? LockState.Mode.REDLOCK
                : legacy ? LockState.Mode.LEGACY : LockState.Mode.SINGLE_NODE;
        return new LockState(name, mode, nodes.size(), agreeing, Optional.ofNullable(token), holderId, since, heldFor,
                Optional.ofNullable(ttl), leaseTtl, fencing >= 0 ? OptionalLong.of(fencing) : OptionalLong.empty(),
                counter >= 0 ? OptionalLong.of(counter) : OptionalLong.empty(), waiters, flags, perNode, audit);
    }

    private static ElectionState electionState(String name, StringRead r, Map<String, Long> observers) {
        boolean led = r.value() != null;
        OptionalLong sinceMs = StringRead.number(r.leadership(), "since");
        Optional<Instant> since = sinceMs.isPresent() ? Optional.of(Instant.ofEpochMilli(sinceMs.getAsLong()))
                : Optional.empty();
        Optional<Duration> leaderFor = sinceMs.isPresent()
                ? Optional.of(Duration.ofMillis(Math.max(0, r.nowMillis() - sinceMs.getAsLong()))) : Optional.empty();
        return new ElectionState(name, Optional.ofNullable(r.value()), StringRead.number(r.leadership(), "term"),
                since, leaderFor, led && r.pttl() >= 0 ? Optional.of(Duration.ofMillis(r.pttl())) : Optional.empty(),
                r.term(), observers.getOrDefault(Keys.derived(name, "changed"), 0L));
    }

    private Optional<QueueState> queueState(RedisNode node, String name) throws InterruptedException {
        List<String> keys = List.of(name, Keys.derived(name, "consumers"), Keys.derived(name, "dead"),
                Keys.derived(name, "delayed"), Keys.derived(name, "enqueued"));
        List<?> r = (List<?>) await(node, node.eval(QUEUE, keys, List.of()));
        String type = (String) r.get(0);
        if (r.size() == 1) {
            throw wrongType(node, name, type, "queue");
        }
        long depth = (Long) r.get(1);
        OptionalLong enqueued = StringRead.number(r.get(2));
        long dead = (Long) r.get(3);
        long delayed = (Long) r.get(4);
        Map<String, String> registry = StringRead.pairs(r.get(5));
        long now = (Long) r.get(6);
        if (type.equals("none") && registry.isEmpty() && dead == 0 && delayed == 0) {
            return Optional.empty();
        }
        List<QueueState.ConsumerState> consumers = new ArrayList<>();
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(registry).entrySet()) {
            consumerState(node, name, e.getKey(), e.getValue(), now).ifPresent(consumers::add);
        }
        long inFlight = consumers.stream().mapToLong(QueueState.ConsumerState::inFlight).sum();
        long overdue = consumers.stream().filter(c -> !c.alive()).mapToLong(QueueState.ConsumerState::inFlight).sum();
        Optional<Duration> oldestInFlight = consumers.stream().flatMap(c -> c.oldestInFlightAge().stream())
                .max(Comparator.naturalOrder());
        Optional<Duration> oldestReady = enqueued.isPresent() && depth > 0
                ? Optional.of(Duration.ofMillis(Math.max(0, now - enqueued.getAsLong()))) : Optional.empty();
        return Optional.of(new QueueState(name, depth, oldestReady, inFlight, oldestInFlight, overdue, dead, delayed,
                consumers));
    }

    /** A registry entry is {@code "<slots> <last beat ms> <ttl ms> <retention ms>"}; others are skipped. */
    private Optional<QueueState.ConsumerState> consumerState(RedisNode node, String queue, String id, String entry,
                                                             long now) throws InterruptedException {
        String[] p = entry.trim().split(" ");
        int slots;
        long lastBeat;
        try {
            slots = Integer.parseInt(p[0]);
            lastBeat = Long.parseLong(p[1]);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        List<String> keys = new ArrayList<>();
        keys.add(Keys.derived(queue, "hb:" + id));
        for (int k = 0; k < slots; k++) {
            keys.add(Keys.derived(queue, "proc:" + id + ":" + k));
        }
        List<?> r = (List<?>) await(node, node.eval(CONSUMER, keys, List.of()));
        boolean alive = (Long) r.get(0) != -2;
        long inFlight = 0;
        long oldest = -1;
        for (int i = 1; i < r.size(); i++) {
            long idle = (Long) r.get(i);
            if (idle != -1) {
                inFlight++;
            }
            oldest = Math.max(oldest, idle >= 0 ? idle : -1);
        }
        return Optional.of(new QueueState.ConsumerState(id, slots, inFlight,
                oldest >= 0 ? Optional.of(Duration.ofSeconds(oldest)) : Optional.empty(),
                Instant.ofEpochMilli(lastBeat), Duration.ofMillis(Math.max(0, now - lastBeat)), alive));
    }

    /** Null only when {@code listing}, the event is unreadable to this user and the channel has no subscriber. */
    private SignalState signalState(RedisNode node, String name, Map<String, Long> counts, boolean readEvent,
                                    boolean listing) throws InterruptedException {
        Optional<String> latched = Optional.empty();
        Optional<Duration> latchedTtl = Optional.empty();
        if (readEvent) {
            StringRead r = readStrings(node, List.of(Keys.derived(name, "event")), 0, listing).get(0);
            if (r == null && counts.getOrDefault(name, 0L) == 0) {
                return null; // known only by an event this user may not read
            }
            if (r != null && r.isString() && r.value() != null) {
                latched = Optional.of(r.value());
                latchedTtl = r.pttl() >= 0 ? Optional.of(Duration.ofMillis(r.pttl())) : Optional.empty();
            }
        }
        return new SignalState(name, counts.getOrDefault(name, 0L), latched, latchedTtl);
    }

    private static <T> T await(RedisNode node, CompletableFuture<T> future) throws InterruptedException {
        return node.await(future, node.commandTimeout());
    }

    private static void checkName(String name, String kind) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(kind + " name must not be blank: give the name of the " + kind);
        }
    }

    private static WrongTypeException wrongType(RedisNode node, String key, String actual, String wanted) {
        String hint = switch (actual) {
            case "list" -> "a queue? try 'inspect queue " + key + "'";
            case "election" -> "try 'inspect election " + key + "'";
            case "lock" -> "try 'inspect lock " + key + "'";
            default -> "not a Coordis " + wanted;
        };
        String what = actual.equals("election") || actual.equals("lock") ? "is " + (actual.equals("election")
                ? "an election" : "a lock") : "holds a " + actual;
        return new WrongTypeException(node.address(), key, actual,
                "key '" + key + "' " + what + ", not " + (wanted.equals("election") ? "an " : "a ") + wanted
                        + " (" + hint + ")", null);
    }
}
