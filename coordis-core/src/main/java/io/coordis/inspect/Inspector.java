package io.coordis.inspect;

import io.coordis.AccessDeniedException;
import io.coordis.CoordisException;
import io.coordis.WrongTypeException;
import io.coordis.internal.election.ElectionLayout;
import io.coordis.internal.redis.AdminCommands;
import io.coordis.internal.Wiring;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.lock.LockLayout;
import io.coordis.internal.lock.SemaphoreLayout;
import io.coordis.internal.queue.QueueLayout;
import io.coordis.internal.signal.SignalLayout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    /** How many audit entries {@link #lock} reads, newest first (as many as a lock keeps). */
    public static final int AUDIT_ENTRIES = LockLayout.AUDIT_ENTRIES;
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
        List<List<NodeRead>> reads = StringRead.read(nodes, list, 0, true);
        Map<String, Long> waiters = numsub(list.stream().map(LockLayout::releasedChannel).toList(), true);
        List<LockState> locks = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String name = list.get(i);
            if (!LockStates.isLock(reads.get(i))) {
                continue;
            }
            long waiting = waiters.getOrDefault(LockLayout.releasedChannel(name), 0L);
            LockState state = LockStates.of(name, reads.get(i), waiting);
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
        List<NodeRead> reads = StringRead.read(nodes, List.of(name), AUDIT_ENTRIES, false).get(0);
        for (NodeRead o : reads) {
            if (o.read() != null && !o.read().isString()) {
                throw wrongType(o.node(), name, o.read().type(), "lock");
            }
            if (o.read() != null && o.read().kind() == StringRead.Kind.ELECTION && o.read().fence().isEmpty()) {
                throw wrongType(o.node(), name, "election", "lock");
            }
        }
        boolean known = reads.stream().anyMatch(o -> o.read() != null && (o.read().value() != null
                || o.read().fence().isPresent() || !o.read().audit().isEmpty()));
        if (!known) {
            return Optional.empty();
        }
        String channel = LockLayout.releasedChannel(name);
        return Optional.of(LockStates.of(name, reads, numsub(List.of(channel), true).getOrDefault(channel, 0L)));
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
        List<StringRead> reads = StringRead.read(node, names, 0, true);
        Map<String, Long> observers = numsub(names.stream().map(ElectionLayout::changedChannel).toList(), false);
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
        StringRead read = StringRead.read(node, List.of(name), 0, false).get(0);
        if (!read.isString()) {
            throw wrongType(node.address(), name, read.type(), "election");
        }
        StringRead.Kind kind = read.kind();
        if (kind == StringRead.Kind.LOCK || kind == StringRead.Kind.LEGACY_LOCK) {
            if (read.term().isEmpty()) {
                throw wrongType(node.address(), name, "lock", "election");
            }
        }
        if (read.value() == null && read.term().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(electionState(name, read, numsub(List.of(ElectionLayout.changedChannel(name)), false)));
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
        for (String key : scan(node, QueueLayout.registryKey("*"), "hash")) {
            KeyLayout.owner(key, QueueLayout::registryKey).filter(match::matches).ifPresent(names::add);
        }
        List<QueueState> queues = new ArrayList<>();
        for (String name : names) {
            try {
                QueueStates.read(node, name).ifPresent(queues::add);
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
        return QueueStates.read(nodes.get(0), name);
    }

    /**
     * The semaphores whose names match {@code glob}, by name: every name with a stored permit count (read on the
     * first node). Idle semaphores are listed too, with no holders.
     *
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    public List<SemaphoreState> semaphores(String glob) throws InterruptedException {
        Glob match = Glob.of(glob);
        RedisNode node = nodes.get(0);
        TreeSet<String> names = new TreeSet<>();
        for (String key : scan(node, "*:permits", "string")) {
            KeyLayout.owner(key, SemaphoreLayout::permitsKey).filter(match::matches).ifPresent(names::add);
        }
        List<SemaphoreState> semaphores = new ArrayList<>();
        for (String name : names) {
            try {
                SemaphoreStates.read(node, name).ifPresent(semaphores::add);
            } catch (AccessDeniedException e) {
                if (e.reason() != AccessDeniedException.Reason.KEY) {
                    throw e;
                }
                LOG.debug("listing semaphores: '{}' left out, this user may not read it", name);
            } catch (WrongTypeException e) {
                LOG.debug("listing semaphores: '{}' left out, its name holds another type", name);
            }
        }
        return semaphores;
    }

    /**
     * The semaphore {@code name}: its permit count, holders (permits, holder, fencing number, TTL left), fencing
     * counter and waiters in line.
     *
     * @return empty when nothing is stored for {@code name}
     * @throws WrongTypeException       when the key holds another Redis type than a sorted set
     * @throws IllegalArgumentException when the name is blank
     */
    public Optional<SemaphoreState> semaphore(String name) throws InterruptedException {
        checkName(name, "semaphore");
        return SemaphoreStates.read(nodes.get(0), name);
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
        for (String channel : await(node, node.admin().pubsubChannels(match.pattern()))) {
            boolean ours = KeyLayout.owner(channel, LockLayout::releasedChannel).isPresent()
                    || KeyLayout.owner(channel, ElectionLayout::changedChannel).isPresent();
            if (!ours) {
                names.add(channel);
            }
        }
        Set<String> events = new HashSet<>();
        for (String key : scan(node, SignalLayout.eventKey("*"), "string")) {
            KeyLayout.owner(key, SignalLayout::eventKey).filter(match::matches).ifPresent(events::add);
        }
        names.addAll(events);
        List<String> list = List.copyOf(names);
        Map<String, Long> counts = numsub(list, false);
        List<SignalState> signals = new ArrayList<>();
        for (String name : list) {
            SignalState state = signalState(node, name, counts, events.contains(name), true);
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

    // ---- reading

    private List<String> scan(RedisNode node, String match, String type) throws InterruptedException {
        Set<String> keys = new LinkedHashSet<>();
        String cursor = "0";
        do {
            AdminCommands.KeyPage page = await(node, node.admin().scan(cursor, match, type, SCAN_COUNT));
            keys.addAll(page.keys());
            cursor = page.cursor();
        } while (!cursor.equals("0"));
        return List.copyOf(keys);
    }

    /** Subscribers per channel: summed over every node ({@code allNodes}), or on the first node. */
    private Map<String, Long> numsub(List<String> channels, boolean allNodes) throws InterruptedException {
        Map<String, Long> counts = new HashMap<>();
        for (RedisNode node : allNodes ? nodes : nodes.subList(0, 1)) {
            try {
                await(node, node.admin().pubsubNumsub(channels)).forEach((k, v) -> counts.merge(k, v, Long::sum));
            } catch (CoordisException e) {
                if (nodes.size() == 1) {
                    throw e;
                }
            }
        }
        return counts;
    }

    private static ElectionState electionState(String name, StringRead r, Map<String, Long> observers) {
        boolean led = r.value() != null;
        ElectionLayout.LeadershipDetails details = ElectionLayout.leadershipDetails(r.leadership());
        Optional<Duration> leaderFor = details.since()
                .map(since -> Duration.ofMillis(Math.max(0, r.nowMillis() - since.toEpochMilli())));
        return new ElectionState(name, Optional.ofNullable(r.value()), details.term(), details.since(), leaderFor,
                led && r.pttl() >= 0 ? Optional.of(Duration.ofMillis(r.pttl())) : Optional.empty(), r.term(),
                observers.getOrDefault(ElectionLayout.changedChannel(name), 0L));
    }

    /** Null only when {@code listing}, the event is unreadable to this user and the channel has no subscriber. */
    private SignalState signalState(RedisNode node, String name, Map<String, Long> counts, boolean readEvent,
                                    boolean listing) throws InterruptedException {
        Optional<String> latched = Optional.empty();
        Optional<Duration> latchedTtl = Optional.empty();
        if (readEvent) {
            StringRead r = StringRead.read(node, List.of(SignalLayout.eventKey(name)), 0, listing).get(0);
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

    static <T> T await(RedisNode node, CompletableFuture<T> future) throws InterruptedException {
        return node.await(future, node.commandTimeout());
    }

    private static void checkName(String name, String kind) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(kind + " name must not be blank: give the name of the " + kind);
        }
    }

    static WrongTypeException wrongType(String node, String key, String actual, String wanted) {
        String what = switch (actual) {
            case "election" -> "is an election";
            case "lock" -> "is a lock";
            default -> "holds a " + actual;
        };
        return new WrongTypeException(node, key, actual, "key '" + key + "' " + what + ", not "
                + (wanted.equals("election") ? "an " : "a ") + wanted, null);
    }
}
