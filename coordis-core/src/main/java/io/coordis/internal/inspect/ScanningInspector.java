package io.coordis.internal.inspect;

import io.coordis.AccessDeniedException;
import io.coordis.CoordisException;
import io.coordis.WrongTypeException;
import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LockState;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.ObjectState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import io.coordis.internal.election.ElectionLayout;
import io.coordis.internal.lock.LockLayout;
import io.coordis.internal.lock.SemaphoreLayout;
import io.coordis.internal.queue.QueueLayout;
import io.coordis.internal.redis.AdminCommands;
import io.coordis.internal.redis.RedisNode;
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
 * The {@link Inspector} of a client: finds objects with {@code SCAN} and {@code PUBSUB CHANNELS}, reads each with
 * one read-only script per node ({@link StringRead}, {@link QueueStates}, {@link SemaphoreStates}) and assembles
 * the states from the primitives' layouts. Thread-safe.
 */
public final class ScanningInspector implements Inspector {
    private static final long SCAN_COUNT = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(Inspector.class);

    private final List<RedisNode> nodes;

    /** The inspector of a client with {@code nodes}: locks are read on every node, the rest on the first. */
    public ScanningInspector(List<RedisNode> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("at least one Redis node is needed");
        }
        this.nodes = List.copyOf(nodes);
    }

    @Override
    public List<ObjectState> list(ObjectKind kind, String glob) throws InterruptedException {
        return List.copyOf(switch (kind) {
            case LOCK -> locks(glob);
            case ELECTION -> elections(glob);
            case QUEUE -> queues(glob);
            case SIGNAL -> signals(glob);
            case SEMAPHORE -> semaphores(glob);
        });
    }

    @Override
    public Optional<ObjectState> read(ObjectKind kind, String name) throws InterruptedException {
        return switch (kind) {
            case LOCK -> lock(name).map(ObjectState.class::cast);
            case ELECTION -> election(name).map(ObjectState.class::cast);
            case QUEUE -> queue(name).map(ObjectState.class::cast);
            case SIGNAL -> Optional.of(signal(name));
            case SEMAPHORE -> semaphore(name).map(ObjectState.class::cast);
        };
    }

    @Override
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

    @Override
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

    @Override
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

    @Override
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

    @Override
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

    @Override
    public Optional<QueueState> queue(String name) throws InterruptedException {
        checkName(name, "queue");
        return QueueStates.read(nodes.get(0), name);
    }

    @Override
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

    @Override
    public Optional<SemaphoreState> semaphore(String name) throws InterruptedException {
        checkName(name, "semaphore");
        return SemaphoreStates.read(nodes.get(0), name);
    }

    @Override
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

    @Override
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
