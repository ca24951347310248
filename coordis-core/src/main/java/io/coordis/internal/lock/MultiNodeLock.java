package io.coordis.internal.lock;

import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.internal.Durations;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.internal.redis.Slots;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.MultiLease;
import io.coordis.lock.MultiLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * A multi-lock on one Redis node, Sentinel-managed master or Cluster: every name an ordinary lock key (as
 * {@link SingleNodeLock} writes it) holding one token. The names of one hash slot (off a cluster: all names) are taken
 * in one {@code multi-acquire.lua} call, all or none; the slots one after another in a global order (slot, then
 * name). A busy name gives back the slots taken in this try and the try answers busy; the client's {@link Contention}
 * then waits for a release on any name's channel (or the holder's TTL) and tries again. Renewal
 * ({@code multi-extend.lua}) and release ({@code multi-release.lua}) go slot by slot. Thread-safe.
 */
final class MultiNodeLock implements MultiLock, Contention.Contender, LeaseOps {
    private static final Logger log = LoggerFactory.getLogger(MultiNodeLock.class);
    static final LuaScript ACQUIRE = LuaScript.load(MultiNodeLock.class, "multi-acquire.lua");
    static final LuaScript RELEASE = LuaScript.load(MultiNodeLock.class, "multi-release.lua");
    static final LuaScript EXTEND = LuaScript.load(MultiNodeLock.class, "multi-extend.lua");

    /** The names of one slot, sorted, with the key lists the scripts take for them. */
    private record Group(List<String> names, List<LockKeys> locks, List<String> acquire, List<String> release,
                         List<String> extend) {
        static Group of(List<String> names, List<String> keys) {
            List<LockKeys> locks = keys.stream().map(LockKeys::of).toList();
            List<String> acquire = new ArrayList<>();
            List<String> release = new ArrayList<>();
            List<String> extend = new ArrayList<>();
            for (LockKeys k : locks) {
                acquire.addAll(k.acquire());
                release.addAll(List.of(k.lock(), k.released(), k.holder()));
                extend.addAll(k.extend());
            }
            return new Group(names, locks, List.copyOf(acquire), List.copyOf(release), List.copyOf(extend));
        }
    }

    private final Node node;
    private final List<String> names;
    private final String name;
    private final String firstKey;
    private final List<Group> groups;
    private final List<String> channels;
    private final LockOptions options;
    private final Contention contention;
    private final Timer timer;
    private final String ttlMillis;
    private final String retentionMillis;

    /** {@code names} checked, distinct, with their {@code keys} (prefix included) in the same order. */
    MultiNodeLock(Node node, List<String> names, List<String> keys, LockOptions options, Contention contention,
                  Timer timer) {
        this.node = node;
        this.names = List.copyOf(names);
        this.name = String.join(",", names);
        this.firstKey = keys.get(0);
        this.options = options;
        this.contention = contention;
        this.timer = timer;
        this.ttlMillis = Durations.millis(options.ttl());
        this.retentionMillis = Durations.millis(options.counterRetention());
        boolean cluster = Slots.isCluster(node);
        TreeMap<Integer, TreeMap<String, String>> bySlot = new TreeMap<>();
        for (int i = 0; i < keys.size(); i++) {
            bySlot.computeIfAbsent(cluster ? Slots.of(keys.get(i)) : 0, s -> new TreeMap<>())
                    .put(keys.get(i), names.get(i));
        }
        List<Group> ordered = new ArrayList<>();
        bySlot.values().forEach(g -> ordered.add(Group.of(List.copyOf(g.values()), List.copyOf(g.keySet()))));
        this.groups = List.copyOf(ordered);
        this.channels = groups.stream().flatMap(g -> g.locks().stream()).map(LockKeys::released).toList();
    }

    @Override
    public List<String> names() {
        return names;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String object() {
        return "multi-lock '" + name + "'";
    }

    /** Where an acquire lines up in the client's local queue: behind other acquires of the same names. */
    private String place() {
        return "multi:" + String.join("\n", channels);
    }

    @Override
    public Optional<MultiLease> tryAcquire() {
        return contention.tryAcquire(place(), this).map(MultiLease.class::cast);
    }

    @Override
    public Optional<MultiLease> acquire(Duration wait) throws InterruptedException {
        return contention.acquire(place(), wait, this).map(MultiLease.class::cast);
    }

    @Override
    public MultiLease acquire() throws InterruptedException {
        return (MultiLease) contention.acquire(place(), this);
    }

    @Override
    public CompletableFuture<Optional<MultiLease>> tryAcquireAsync() {
        return contention.tryAcquireAsync(place(), this, MultiLease.class::cast);
    }

    @Override
    public CompletableFuture<Optional<MultiLease>> acquireAsync(Duration wait) {
        return contention.acquireAsync(place(), wait, this, MultiLease.class::cast);
    }

    @Override
    public CompletableFuture<MultiLease> acquireAsync() {
        return contention.acquireAsync(place(), this, MultiLease.class::cast);
    }

    @Override
    public Contention.Pacer pacer() {
        return ContendedLock.releasePacer(node, channels, timer);
    }

    @Override
    public CompletableFuture<Contention.Attempt> attempt(LocalQueue.Permit permit, boolean waits) {
        String token = options.newToken();
        List<String> args = List.of(token, ttlMillis, options.holderId(), Long.toString(System.currentTimeMillis()),
                waits ? "1" : "0", retentionMillis);
        return take(0, token, args, new LinkedHashMap<>(), permit, timer.now());
    }

    /**
     * Takes the slots from {@code g} on, one call each in order, having taken {@code fences} before: the lease once
     * every slot is taken; busy (the slots taken given back) at the first busy name; a failure, the slots this try
     * may have taken given back, when a call fails.
     */
    private CompletableFuture<Contention.Attempt> take(int g, String token, List<String> args, Map<String, Long> fences,
                                                       LocalQueue.Permit permit, long start) {
        if (g == groups.size()) {
            return CompletableFuture.completedFuture(Contention.Attempt.granted(lease(permit, token, fences, start)));
        }
        Group group = groups.get(g);
        String address = node.addressFor(group.acquire().get(0));
        return within(node.eval(ACQUIRE, group.acquire(), args)).handle((reply, f) -> {
            if (f != null) {
                giveBack(token, g + 1);
                throw ContendedLock.failure(node, f);
            }
            List<?> result = Replies.list(reply, 2, ACQUIRE, address);
            if (!Replies.isOne(result)) {
                giveBack(token, g);
                return CompletableFuture.completedFuture(
                        Contention.Attempt.busy(Replies.number(result, 1, ACQUIRE, address)));
            }
            Replies.list(reply, group.names().size() + 1, ACQUIRE, address);
            for (int i = 0; i < group.names().size(); i++) {
                fences.put(group.names().get(i), Replies.number(result, i + 1, ACQUIRE, address));
            }
            return take(g + 1, token, args, fences, permit, start);
        }).thenCompose(next -> next);
    }

    /** One try's reply, limited to half the TTL as well as the command timeout (as a single lock's try is). */
    private <T> CompletableFuture<T> within(CompletableFuture<T> reply) {
        Duration half = Duration.ofNanos(options.ttl().toNanos() / 2);
        return half.compareTo(node.commandTimeout()) < 0 ? node.within(reply, half) : reply;
    }

    private Lease lease(LocalQueue.Permit permit, String token, Map<String, Long> taken, long start) {
        Map<String, Long> fences = new LinkedHashMap<>();
        names.forEach(n -> fences.put(n, taken.get(n)));
        List<NodeVote> votes = List.of(new NodeVote(node.address(), NodeVote.Vote.ACQUIRED, ""));
        HeldLease lease = new HeldLease("multi-lock", name, firstKey, token, fences.get(names.get(0)), votes, options,
                start, this, timer, contention.telemetry, permit::close);
        return new HeldMultiLease(lease, names, Collections.unmodifiableMap(fences));
    }

    /** Releases, not waiting, what {@code token} holds in the slots before {@code upTo}. */
    private void giveBack(String token, int upTo) {
        for (Group group : groups.subList(0, upTo)) {
            node.eval(RELEASE, group.release(), List.of(token)).whenComplete((v, f) -> {
                if (f != null) {
                    log.debug("could not release {} in the background: {}", object(), f.toString());
                }
            });
        }
    }

    @Override
    public void abandon(Lease lease) {
        ((HeldMultiLease) lease).lease().abandon(token -> giveBack(token, groups.size()));
    }

    @Override
    public CompletableFuture<Boolean> extend(String token, Duration ttl) {
        List<String> args = List.of(token, Durations.millis(ttl));
        CompletableFuture<Boolean> all = CompletableFuture.completedFuture(true);
        for (Group group : groups) {
            CompletableFuture<Boolean> one = node.eval(EXTEND, group.extend(), args).thenApply(reply ->
                    Replies.isOne(Replies.list(reply, 1, EXTEND, node.addressFor(group.extend().get(0)))));
            all = all.thenCombine(one, Boolean::logicalAnd);
        }
        return all;
    }

    @Override
    public boolean release(String token) {
        long released = 0;
        try {
            for (Group group : groups) {
                Object reply = node.awaitUninterruptibly(node.eval(RELEASE, group.release(), List.of(token)),
                        node.commandTimeout());
                released += Replies.number(Replies.list(reply, 1, RELEASE, node.address()), 0, RELEASE, node.address());
            }
        } catch (NodeUnavailableException e) {
            giveBack(token, groups.size()); // a release may never have reached Redis: once more, not waited for
            throw e;
        }
        return released > 0;
    }

    @Override
    public boolean releaseAfter(String token, Duration keepFor) {
        boolean kept = false;
        for (Group group : groups) {
            for (LockKeys keys : group.locks()) {
                Object reply = node.awaitUninterruptibly(node.eval(SingleNodeLock.RELEASE_AFTER, keys.release(),
                        List.of(token, Long.toString(keepFor.toMillis()), keys.released())), node.commandTimeout());
                kept |= Replies.isOne(Replies.list(reply, 1, SingleNodeLock.RELEASE_AFTER, node.address()));
            }
        }
        return kept;
    }

    @Override
    public String toString() {
        return "MultiNodeLock[" + names + " in " + groups.size() + " slot(s) on " + node.address() + ", " + options
                + "]";
    }
}
