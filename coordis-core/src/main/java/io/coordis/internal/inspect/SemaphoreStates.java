package io.coordis.internal.inspect;

import io.coordis.inspect.Glob;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.SemaphoreState;
import io.coordis.internal.lock.SemaphoreLayout;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

import static io.coordis.internal.StoredValues.number;
import static io.coordis.internal.StoredValues.pairs;

/**
 * Semaphores for the inspector: found as the names with a stored permit count on the first node, read in one
 * atomic step ({@code semaphore-state.lua}) and assembled into a {@link SemaphoreState}; the holder details are
 * read by {@link SemaphoreLayout}. Thread-safe.
 */
final class SemaphoreStates implements StateReader<SemaphoreState> {
    static final LuaScript READ = LuaScript.load(SemaphoreStates.class, "semaphore-state.lua");

    private final Keyspace keyspace;

    SemaphoreStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.SEMAPHORE;
    }

    /** Idle semaphores too: every name whose permit count is stored. */
    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        TreeSet<String> names = new TreeSet<>();
        for (String key : keyspace.scan(keyspace.first(), "*:permits", "string")) {
            KeyLayout.owner(key, SemaphoreLayout::permitsKey).filter(glob::matches).ifPresent(names::add);
        }
        return names;
    }

    @Override
    public List<SemaphoreState> readFound(List<String> names) throws InterruptedException {
        return keyspace.readEach(names, "semaphores", SemaphoreStates::read);
    }

    @Override
    public Optional<SemaphoreState> read(String name) throws InterruptedException {
        return read(keyspace.first(), name);
    }

    /** Every key of the semaphore {@code name}, in the order {@code semaphore-state.lua} takes them. */
    private static List<String> keys(String name) {
        return List.of(name, SemaphoreLayout.detailsKey(name), SemaphoreLayout.permitsKey(name),
                SemaphoreLayout.fenceKey(name), SemaphoreLayout.waitersKey(name), SemaphoreLayout.lapsesKey(name));
    }

    /**
     * @return empty when nothing is stored for {@code name} (no holders, no permit count, and no fencing counter: it
     *         was not used within the counter's retention)
     */
    private static Optional<SemaphoreState> read(RedisNode node, String name) throws InterruptedException {
        List<?> r = (List<?>) Keyspace.await(node, node.eval(READ, keys(name), List.of()));
        String type = (String) r.get(0);
        if (r.size() == 1) {
            throw Keyspace.wrongType(node.address(), name, type, "semaphore");
        }
        OptionalLong permits = number(r.get(1));
        if (type.equals("none") && permits.isEmpty() && number(r.get(2)).isEmpty()) {
            return Optional.empty();
        }
        long now = (Long) r.get(7);
        Map<String, String> details = pairs(r.get(4));
        List<SemaphoreState.Holder> holders = new ArrayList<>();
        int held = 0;
        for (Map.Entry<String, Long> e : scored(r.get(3)).entrySet()) {
            long ttl = e.getValue() - now;
            if (ttl <= 0) {
                continue;
            }
            SemaphoreLayout.HolderDetails d = SemaphoreLayout.holderDetails(details.get(e.getKey()));
            holders.add(new SemaphoreState.Holder(e.getKey(), d.permits().orElse(0), d.holderId(), d.fence(),
                    d.since(), Duration.ofMillis(ttl)));
            held += d.permits().orElse(0);
        }
        Map<String, Long> lapses = scored(r.get(6));
        List<SemaphoreState.Waiter> waiters = new ArrayList<>();
        for (Map.Entry<String, Long> e : scored(r.get(5)).entrySet()) {
            long lapsesIn = lapses.getOrDefault(e.getKey(), now) - now;
            if (lapsesIn <= 0) {
                continue;
            }
            long arrivedMillis = e.getValue() / 1000;
            waiters.add(new SemaphoreState.Waiter(e.getKey(), Duration.ofMillis(Math.max(0, now - arrivedMillis)),
                    Duration.ofMillis(lapsesIn)));
        }
        return Optional.of(new SemaphoreState(name, permits.isPresent()
                ? OptionalInt.of((int) permits.getAsLong()) : OptionalInt.empty(), held, number(r.get(2)),
                holders, waiters));
    }

    /** A flat member/score list, in its order; Redis may write a large score in exponent form. */
    private static Map<String, Long> scored(Object flat) {
        Map<String, Long> in = new LinkedHashMap<>();
        List<?> list = (List<?>) flat;
        for (int i = 0; i + 1 < list.size(); i += 2) {
            in.put(String.valueOf(list.get(i)), (long) Double.parseDouble(String.valueOf(list.get(i + 1))));
        }
        return in;
    }
}
