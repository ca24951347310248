package io.coordis.internal.inspect;

import io.coordis.inspect.Inspector;
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
import java.util.TreeMap;

import static io.coordis.internal.StoredValues.number;
import static io.coordis.internal.StoredValues.pairs;

/**
 * Reads a queue for the inspector: its figures in one atomic step ({@code queue-state.lua}), then each
 * registered consumer's heartbeat and slots ({@code consumer-state.lua}), and assembles a {@link QueueState}.
 */
final class QueueStates {
    static final LuaScript QUEUE = LuaScript.load(QueueStates.class, "queue-state.lua");
    static final LuaScript CONSUMER = LuaScript.load(QueueStates.class, "consumer-state.lua");

    private QueueStates() {
    }

    /** @return empty when the list is absent and no consumer, dead letter or delayed message is known */
    static Optional<QueueState> read(RedisNode node, String name) throws InterruptedException {
        List<?> r = (List<?>) ScanningInspector.await(node, node.eval(QUEUE, QueueLayout.figureKeys(name), List.of()));
        String type = (String) r.get(0);
        if (r.size() == 1) {
            throw ScanningInspector.wrongType(node.address(), name, type, "queue");
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
        List<?> r = (List<?>) ScanningInspector.await(node, node.eval(CONSUMER, keys, List.of()));
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
