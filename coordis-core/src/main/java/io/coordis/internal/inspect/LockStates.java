package io.coordis.internal.inspect;

import io.coordis.CoordisException;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LockState;
import io.coordis.inspect.ObjectKind;
import io.coordis.internal.lock.LockLayout;
import io.coordis.internal.redis.RedisNode;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Locks for the inspector: found with {@code SCAN} over the string keys of every node, read with
 * {@code string-state.lua} ({@link StringRead}) on every node, and assembled into a {@link LockState}: the value
 * most nodes hold is the token, the holder details come from a node that agrees, and the flags compare the time
 * left with the lease TTL (a Coordis holder renews every third of it). Thread-safe.
 */
final class LockStates implements StateReader<LockState> {
    private final Keyspace keyspace;

    LockStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.LOCK;
    }

    /** Every node's string keys that are not derived keys; fails only when every node fails. */
    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        TreeSet<String> names = new TreeSet<>();
        CoordisException failure = null;
        int failed = 0;
        for (RedisNode node : keyspace.nodes()) {
            try {
                keyspace.scan(node, glob.pattern(), "string").stream().filter(k -> !KeyLayout.isDerived(k))
                        .forEach(names::add);
            } catch (CoordisException e) {
                failure = failure == null ? e : failure;
                failed++;
            }
        }
        if (failed == keyspace.nodes().size()) {
            throw failure;
        }
        return names;
    }

    /** The held locks among {@code names}; audit entries are not read. */
    @Override
    public List<LockState> readFound(List<String> names) throws InterruptedException {
        List<List<NodeRead>> reads = StringRead.read(keyspace.nodes(), names, 0, true);
        Map<String, Long> waiters = keyspace.numsub(names.stream().map(LockLayout::releasedChannel).toList(), true);
        List<LockState> locks = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            if (!isLock(reads.get(i))) {
                continue;
            }
            LockState state = of(name, reads.get(i), waiters.getOrDefault(LockLayout.releasedChannel(name), 0L));
            if (state.held()) {
                locks.add(state);
            }
        }
        return locks;
    }

    /** Any string key, with its audit entries; a free lock that Coordis has used too. */
    @Override
    public Optional<LockState> read(String name) throws InterruptedException {
        List<NodeRead> reads = StringRead.read(keyspace.nodes(), List.of(name), Inspector.AUDIT_ENTRIES, false).get(0);
        for (NodeRead o : reads) {
            if (o.read() != null && !o.read().isString()) {
                throw Keyspace.wrongType(o.node(), name, o.read().type(), "lock");
            }
            if (o.read() != null && o.read().kind() == StringRead.Kind.ELECTION && o.read().fence().isEmpty()) {
                throw Keyspace.wrongType(o.node(), name, "election", "lock");
            }
        }
        boolean known = reads.stream().anyMatch(o -> o.read() != null && (o.read().value() != null
                || o.read().fence().isPresent() || !o.read().audit().isEmpty()));
        if (!known) {
            return Optional.empty();
        }
        String channel = LockLayout.releasedChannel(name);
        return Optional.of(of(name, reads, keyspace.numsub(List.of(channel), true).getOrDefault(channel, 0L)));
    }

    /** Whether the first node that holds a value holds a lock (rather than an election or something else). */
    private static boolean isLock(List<NodeRead> reads) {
        for (NodeRead o : reads) {
            if (o.read() != null && o.read().value() != null) {
                StringRead.Kind kind = o.read().kind();
                return kind == StringRead.Kind.LOCK || kind == StringRead.Kind.LEGACY_LOCK;
            }
        }
        return false;
    }

    static LockState of(String name, List<NodeRead> reads, long waiters) {
        int nodes = reads.size();
        Map<String, Integer> votes = new LinkedHashMap<>();
        boolean legacy = false;
        for (NodeRead o : reads) {
            if (o.read() != null && o.read().value() != null && !o.read().legacyExpired()) {
                votes.merge(o.read().value(), 1, Integer::sum);
                legacy |= o.read().kind() == StringRead.Kind.LEGACY_LOCK;
            }
        }
        String token = votes.entrySet().stream().max(Comparator.comparingInt(Map.Entry::getValue))
                .map(Map.Entry::getKey).orElse(null);
        int agreeing = token == null ? 0 : votes.get(token);
        LockLayout.HolderDetails holder = null;
        long now = 0;
        Duration ttl = null;
        boolean noExpiry = false;
        long fencing = -1;
        long counter = -1;
        List<LockState.NodeState> perNode = new ArrayList<>();
        List<AuditEntry> audit = null;
        List<LockHolder> readers = List.of();
        long writerWaiting = 0;
        for (NodeRead o : reads) {
            StringRead r = o.read();
            if (r == null) {
                perNode.add(new LockState.NodeState(o.node(), Optional.empty(), Optional.empty(), Optional.empty(),
                        OptionalLong.empty(), OptionalLong.empty(), false, Optional.of(o.error())));
                continue;
            }
            audit = audit == null ? r.audit() : audit;
            writerWaiting = Math.max(writerWaiting, r.writerWaitingMillis());
            counter = Math.max(counter, r.fence().orElse(-1));
            boolean agrees = token != null && token.equals(r.value());
            LockLayout.HolderDetails details = LockLayout.holderDetails(r.holder());
            if (agrees) {
                now = Math.max(now, r.nowMillis());
                if (readers.isEmpty()) {
                    readers = r.readers();
                }
                if (holder == null && !r.holder().isEmpty()) {
                    holder = details;
                }
                Optional<Duration> left = r.ttl();
                if (left.isEmpty()) {
                    noExpiry = true;
                } else if (ttl == null || left.get().compareTo(ttl) < 0) {
                    ttl = left.get();
                }
                fencing = Math.max(fencing, details.fence().orElse(-1));
            }
            perNode.add(new LockState.NodeState(o.node(), Optional.ofNullable(r.value()), r.ttl(), details.holderId(),
                    details.fence(), r.fence(), agrees, Optional.empty()));
        }
        if (holder == null) {
            holder = LockLayout.holderDetails(Map.of());
        }
        long nowMs = now;
        Optional<Duration> heldFor = holder.since().map(s -> Duration.ofMillis(Math.max(0, nowMs - s.toEpochMilli())));
        Set<LockState.Flag> flags = token == null ? Set.of()
                : flags(holder, legacy || !readers.isEmpty(), noExpiry, ttl, nodes > 1 && agreeing < nodes);
        LockState.Mode mode = nodes > 1 ? LockState.Mode.REDLOCK
                : legacy ? LockState.Mode.LEGACY : LockState.Mode.SINGLE_NODE;
        return new LockState(name, mode, nodes, agreeing, Optional.ofNullable(token), holder.holderId(),
                holder.since(), heldFor, Optional.ofNullable(ttl), holder.leaseTtl(),
                fencing >= 0 ? OptionalLong.of(fencing) : OptionalLong.empty(),
                counter >= 0 ? OptionalLong.of(counter) : OptionalLong.empty(), waiters, flags, perNode,
                audit == null ? List.of() : audit, readers,
                writerWaiting > 0 ? Optional.of(Duration.ofMillis(writerWaiting)) : Optional.empty());
    }

    /** {@code detailsNotKept}: a legacy lock, or read holds, which keep no holder details for the key itself. */
    private static Set<LockState.Flag> flags(LockLayout.HolderDetails holder, boolean detailsNotKept, boolean noExpiry,
                                             Duration ttl, boolean disagree) {
        Set<LockState.Flag> flags = EnumSet.noneOf(LockState.Flag.class);
        if (holder.holderId().isEmpty() && !detailsNotKept) {
            flags.add(LockState.Flag.FOREIGN);
        }
        if (noExpiry) {
            flags.add(LockState.Flag.NO_EXPIRY);
        }
        if (ttl != null) {
            long left = ttl.toMillis();
            long lease = holder.leaseTtl().map(Duration::toMillis).orElse(-1L);
            if (lease > 0 ? left * 4 < lease : left < 1000) {
                flags.add(LockState.Flag.EXPIRING_SOON);
            }
            if (lease > 0 && left * 10 < lease * 6) {
                flags.add(LockState.Flag.NOT_RENEWED);
            }
        }
        if (disagree) {
            flags.add(LockState.Flag.NODES_DISAGREE);
        }
        return flags;
    }
}
