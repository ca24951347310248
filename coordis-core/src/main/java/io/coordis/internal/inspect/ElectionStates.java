package io.coordis.internal.inspect;

import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Glob;
import io.coordis.inspect.ObjectKind;
import io.coordis.internal.election.ElectionLayout;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Elections for the inspector: found with {@code SCAN} over the first node's string keys, read with
 * {@code string-state.lua} ({@link StringRead}), the leadership details by {@link ElectionLayout}, and the
 * observers counted on the election's change channel. Thread-safe.
 */
final class ElectionStates implements StateReader<ElectionState> {
    private final Keyspace keyspace;

    ElectionStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.ELECTION;
    }

    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        TreeSet<String> names = new TreeSet<>();
        keyspace.scan(keyspace.first(), glob.pattern(), "string").stream().filter(k -> !KeyLayout.isDerived(k))
                .forEach(names::add);
        return names;
    }

    /** The elections with a leader among {@code names}. */
    @Override
    public List<ElectionState> readFound(List<String> names) throws InterruptedException {
        List<StringRead> reads = StringRead.read(keyspace.first(), names, 0, true);
        Map<String, Long> observers = keyspace.numsub(names.stream().map(ElectionLayout::changedChannel).toList(),
                false);
        List<ElectionState> elections = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            if (reads.get(i) != null && reads.get(i).kind() == StringRead.Kind.ELECTION) {
                elections.add(state(names.get(i), reads.get(i), observers));
            }
        }
        return elections;
    }

    /** A leaderless election that has a term counter too. */
    @Override
    public Optional<ElectionState> read(String name) throws InterruptedException {
        RedisNode node = keyspace.first();
        StringRead read = StringRead.read(node, List.of(name), 0, false).get(0);
        if (!read.isString()) {
            throw Keyspace.wrongType(node.address(), name, read.type(), "election");
        }
        StringRead.Kind kind = read.kind();
        if ((kind == StringRead.Kind.LOCK || kind == StringRead.Kind.LEGACY_LOCK) && read.term().isEmpty()) {
            throw Keyspace.wrongType(node.address(), name, "lock", "election");
        }
        if (read.value() == null && read.term().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(state(name, read, keyspace.numsub(List.of(ElectionLayout.changedChannel(name)), false)));
    }

    private static ElectionState state(String name, StringRead r, Map<String, Long> observers) {
        boolean led = r.value() != null;
        ElectionLayout.LeadershipDetails details = ElectionLayout.leadershipDetails(r.leadership());
        Optional<Duration> leaderFor = details.since()
                .map(since -> Duration.ofMillis(Math.max(0, r.nowMillis() - since.toEpochMilli())));
        return new ElectionState(name, Optional.ofNullable(r.value()), details.term(), details.since(), leaderFor,
                led && r.pttl() >= 0 ? Optional.of(Duration.ofMillis(r.pttl())) : Optional.empty(), r.term(),
                observers.getOrDefault(ElectionLayout.changedChannel(name), 0L));
    }
}
