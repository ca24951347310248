package io.coordis.internal.inspect;

import io.coordis.WrongTypeException;
import io.coordis.inspect.Glob;
import io.coordis.inspect.LatchState;
import io.coordis.inspect.ObjectKind;
import io.coordis.internal.latch.LatchLayout;
import io.coordis.internal.redis.RedisNode;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Count-down latches for the inspector: found as the names whose key ({@code {name}:latch}, {@link LatchLayout}) is
 * a string on the first node, read with {@code value-state.lua} ({@link ValueRead}), and their waiters counted on
 * the latch's channel ({@code PUBSUB NUMSUB}). Thread-safe.
 */
final class LatchStates implements StateReader<LatchState> {
    private final Keyspace keyspace;

    LatchStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.LATCH;
    }

    /** The names with a key: open latches too, until their key expires. */
    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        TreeSet<String> names = new TreeSet<>();
        for (String key : keyspace.scan(keyspace.first(), "*:latch", "string")) {
            KeyLayout.owner(key, LatchLayout::key).filter(glob::matches).ifPresent(names::add);
        }
        return names;
    }

    @Override
    public List<LatchState> readFound(List<String> names) throws InterruptedException {
        Map<String, Long> waiters = keyspace.numsub(names.stream().map(LatchLayout::channel).toList(), false);
        return keyspace.readEach(names, "latches", (node, name) -> read(node, name, waiters));
    }

    @Override
    public Optional<LatchState> read(String name) throws InterruptedException {
        return read(keyspace.first(), name, keyspace.numsub(List.of(LatchLayout.channel(name)), false));
    }

    /**
     * @param waiters subscribers per channel, counted before
     * @return empty when the latch has no key (never used, or expired)
     * @throws WrongTypeException when its key holds another type, or a string that is no count
     */
    private static Optional<LatchState> read(RedisNode node, String name, Map<String, Long> waiters)
            throws InterruptedException {
        String key = LatchLayout.key(name);
        ValueRead r = ValueRead.read(node, key);
        if (!r.isString()) {
            if (r.type().equals("none")) {
                return Optional.empty();
            }
            throw Keyspace.wrongType(node.address(), key, r.type(), "latch");
        }
        OptionalLong count = r.whole().map(LatchLayout::count).orElse(OptionalLong.empty());
        if (count.isEmpty()) {
            throw new WrongTypeException(node.address(), key, "string", "key '" + key + "' holds a string that is "
                    + "no latch count: not a latch", null);
        }
        return Optional.of(new LatchState(name, count.getAsLong(), r.ttl(),
                waiters.getOrDefault(LatchLayout.channel(name), 0L)));
    }
}
