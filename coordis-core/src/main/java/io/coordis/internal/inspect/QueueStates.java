package io.coordis.internal.inspect;

import io.coordis.inspect.Glob;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.QueueState;
import io.coordis.internal.queue.QueueLayout;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import static io.coordis.internal.StoredValues.number;
import static io.coordis.internal.StoredValues.pairs;

/**
 * Queues for the inspector: found as the first node's lists that are not derived keys and the names with a
 * consumer registry ({@link QueueLayout}), read with their figures in one atomic step ({@code queue-state.lua}),
 * then each registered consumer's heartbeat and slots ({@code consumer-state.lua}), and assembled into a
 * {@link QueueState}. Thread-safe.
 */
final class QueueStates implements StateReader<QueueState> {
    static final LuaScript QUEUE = LuaScript.load(QueueStates.class, "queue-state.lua");
    static final LuaScript CONSUMER = LuaScript.load(QueueStates.class, "consumer-state.lua");

    private final Keyspace keyspace;

    QueueStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.QUEUE;
    }

    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        RedisNode node = keyspace.first();
        TreeSet<String> names = new TreeSet<>();
        keyspace.scan(node, glob.pattern(), "list").stream().filter(k -> !KeyLayout.isDerived(k)).forEach(names::add);
        for (String key : keyspace.scan(node, QueueLayout.registryKey("*"), "hash")) {
            KeyLayout.owner(key, QueueLayout::registryKey).filter(glob::matches).ifPresent(names::add);
        }
        return names;
    }

    @Override
    public List<QueueState> readFound(List<String> names) throws InterruptedException {
        return keyspace.readEach(names, "queues", QueueStates::read);
    }

    @Override
    public Optional<QueueState> read(String name) throws InterruptedException {
        return read(keyspace.first(), name);
    }

    /** @return empty when the list is absent and no consumer, dead letter or delayed message is known */
    private static Optional<QueueState> read(RedisNode node, String name) throws InterruptedException {
        List<?> r = (List<?>) Keyspace.await(node, node.eval(QUEUE, QueueLayout.figureKeys(name), List.of()));
        String type = (String) r.get(0);
        if (r.size() == 1) {
            throw Keyspace.wrongType(node.address(), name, type, "queue");
        }
        long depth = (Long) r.get(1);
        OptionalLong enqueued = number(r.get(2));
        long dead = (Long) r.get(3);
        long delayed = (Long) r.get(4);
        Map<String, String> registry = pairs(r.get(5));
        long now = (Long) r.get(6);
        long settled = (Long) r.get(7);
        if (type.equals("none") && registry.isEmpty() && dead == 0 && delayed == 0) {
            return Optional.empty();
        }
        List<QueueState.ConsumerState> consumers = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(registry).entrySet()) {
            Optional<QueueLayout.Registration> entry = QueueLayout.registration(e.getValue());
            if (entry.isPresent()) {
                consumers.add(consumer(node, name, e.getKey(), entry.get(), now));
            }
        }
        long inFlight = consumers.stream().mapToLong(QueueState.ConsumerState::inFlight).sum();
        long overdue = consumers.stream().filter(c -> !c.alive()).mapToLong(QueueState.ConsumerState::inFlight).sum();
        Optional<Duration> oldestInFlight = consumers.stream().flatMap(c -> c.oldestInFlightAge().stream())
                .max(Comparator.naturalOrder());
        Optional<Duration> oldestReady = enqueued.isPresent() && depth > 0
                ? Optional.of(Duration.ofMillis(Math.max(0, now - enqueued.getAsLong()))) : Optional.empty();
        return Optional.of(new QueueState(name, depth, oldestReady, inFlight, oldestInFlight, overdue, dead, delayed,
                settled, consumers));
    }

    private static QueueState.ConsumerState consumer(RedisNode node, String queue, String id,
                                                     QueueLayout.Registration entry, long now)
            throws InterruptedException {
        List<String> keys = QueueLayout.consumerKeys(queue, id, entry.slots());
        List<?> r = (List<?>) Keyspace.await(node, node.eval(CONSUMER, keys, List.of()));
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
        long lastBeat = entry.lastBeatMillis();
        return new QueueState.ConsumerState(id, entry.slots(), inFlight,
                oldest >= 0 ? Optional.of(Duration.ofSeconds(oldest)) : Optional.empty(),
                Instant.ofEpochMilli(lastBeat), Duration.ofMillis(Math.max(0, now - lastBeat)), alive);
    }
}
