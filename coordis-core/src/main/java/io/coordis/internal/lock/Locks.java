package io.coordis.internal.lock;

import io.coordis.Replication;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Keys;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.Node;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.LockOptions;
import io.coordis.lock.MultiLock;
import io.coordis.lock.ReadWriteLock;
import io.coordis.lock.Semaphore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Creates locks over one client's Redis connections: one node, or N ≥ 3 independent masters for
 * Redlock. Built by {@code Coordis}. Thread-safe.
 */
public final class Locks {
    private final List<Node> nodes;
    private final Node node;
    private final Namespace namespace;
    private final List<RestartGuard> guards;
    private final AtomicReference<Duration> largestRedlockTtl = new AtomicReference<>(Duration.ZERO);
    private final Timer timer;
    private final Telemetry telemetry;
    private final Contention contention;

    /**
     * Locks on {@code nodes} whose keys are in {@code namespace}: every lock's key (after the prefix of its options)
     * and the per-node key of the Redlock restart guard. Acquires and leases report to {@code telemetry}.
     *
     * @throws IllegalArgumentException for 2 nodes (Redlock needs at least 3) or none
     */
    public Locks(List<? extends Node> nodes, Namespace namespace, Timer timer, Telemetry telemetry) {
        if (nodes.isEmpty() || nodes.size() == 2) {
            throw new IllegalArgumentException("locks need one Redis node, or at least 3 independent masters for "
                    + "Redlock (5 is typical), got " + nodes.size());
        }
        this.nodes = List.copyOf(nodes);
        this.node = nodes.get(0);
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.guards = nodes.stream().map(n -> new RestartGuard(LockNode.of(n), namespace, timer)).toList();
        this.timer = timer;
        this.telemetry = telemetry;
        this.contention = new Contention(new LocalQueue(), timer, telemetry);
    }

    /**
     * A lock on {@code name}: on the single node, or Redlock over all nodes when there are several.
     *
     * @param name    the resource name
     * @param options the lock's options
     * @return the lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     */
    public DistributedLock lock(String name, LockOptions options) {
        Objects.requireNonNull(options, "lock options must not be null");
        if (nodes.size() == 1) {
            checkReplicationWait(options);
            if (options.fair()) {
                refuseReplication(options, "a fair lock", "its grants go through the line, which waits for no "
                        + "replica: use a plain lock for grants that must reach replicas");
            }
            String checked = checkName(name);
            return options.fair() ? new FairLock(node, checked, key(checked, options), options, contention, timer)
                    : new SingleNodeLock(node, checked, key(checked, options), options, contention, timer);
        }
        refuseFair(options, "a Redlock lock", "connect a client to one Redis (or a Sentinel-managed master) for a "
                + "fair lock");
        refuseReplication(options, "a Redlock lock", "Redlock's safety rests on a majority of independent masters, "
                + "not on replicas: leave replication off for Redlock (or lock on one replicated master instead)");
        largestRedlockTtl.accumulateAndGet(options.ttl(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
        String checked = checkName(name);
        return new Redlock(nodes, guards, largestRedlockTtl::get, checked, key(checked, options), options, contention,
                timer);
    }

    /**
     * A read-write lock on {@code name}, whose write side is {@link #lock} on the same name.
     *
     * @param name    the resource name
     * @param options the options of both sides
     * @return the read-write lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    on a client of several Redlock masters: read-write locks run on one node
     */
    public ReadWriteLock readWriteLock(String name, LockOptions options) {
        Objects.requireNonNull(options, "lock options must not be null");
        if (nodes.size() != 1) {
            throw new IllegalStateException("read-write locks run on one Redis node (or a Sentinel-managed master or a "
                    + "Cluster); this client has " + nodes.size() + " Redlock masters: connect a client to one URL");
        }
        refuseFair(options, "a read-write lock", "use a plain lock for a fair write lock");
        refuseReplication(options, "a read-write lock", "its read holds are not waited for: use a plain lock "
                + "for writes that must reach replicas");
        String checked = checkName(name);
        String key = key(checked, options);
        return new SingleNodeReadWriteLock(new ReaderSetLock(node, checked, key, options, contention, timer),
                new SingleNodeLock(node, checked, key, options, contention, timer));
    }

    /**
     * A lock on {@code name} in the format of the classic {@code SETNX} pattern, for sharing it with
     * programs that still use that pattern; weaker than {@link #lock} (it needs synchronised clocks).
     *
     * @param name    the resource name, the key of the lock
     * @param options the lock's options
     * @return the lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     */
    public DistributedLock legacy(String name, LockOptions options) {
        Objects.requireNonNull(options, "lock options must not be null");
        if (nodes.size() != 1) {
            throw new IllegalStateException("the legacy lock runs on one Redis node; this client has " + nodes.size());
        }
        refuseFair(options, "the legacy lock", "use a plain lock for a fair lock");
        refuseReplication(options, "the legacy lock", "its SETNX format is kept for programs that do not wait for "
                + "replicas either: use a plain lock for writes that must reach replicas");
        String checked = checkName(name);
        return new LegacyLock(node, checked, key(checked, options), options, contention, timer);
    }

    /**
     * A semaphore on {@code name} with {@code permits} permits (written only when none is stored), each permit a
     * lease with the options' TTL and holder id.
     *
     * @param name    the semaphore's name
     * @param permits the permit count written by the first acquisition when none is stored
     * @param options the options of every permit
     * @return the semaphore; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or too long, or {@code permits} is below 1
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public Semaphore semaphore(String name, int permits, LockOptions options) {
        Objects.requireNonNull(options, "lock options must not be null");
        if (nodes.size() != 1) {
            throw new IllegalStateException("a semaphore lives on one Redis, but this client talks to " + nodes.size()
                    + " independent masters (Redlock): connect a separate client to one Redis for semaphores");
        }
        refuseReplication(options, "a semaphore", "its permits are not waited for: use a lock for a grant that "
                + "must reach replicas");
        String checked = Keys.requireName("semaphore name", name, "name the semaphore, e.g. \"pool:db\"");
        return new QueuedSemaphore(node, checked, key(checked, options), permits, options, timer, telemetry);
    }

    /** The most names one multi-lock takes: every try sends four keys a name. */
    public static final int MAX_MULTI_LOCK_NAMES = 100;

    /**
     * A multi-lock on {@code names}: on the single node (a Sentinel-managed master, a Cluster); not over Redlock.
     *
     * @param names   the resource names, at least one, at most {@value #MAX_MULTI_LOCK_NAMES}, no name twice
     * @param options the options of every name
     * @return the multi-lock; it holds nothing until acquired
     * @throws IllegalArgumentException for no names, too many, a name given twice, or a bad name
     * @throws IllegalStateException    on a client of several Redlock masters
     */
    public MultiLock multiLock(List<String> names, LockOptions options) {
        Objects.requireNonNull(names, "multi-lock names must not be null");
        Objects.requireNonNull(options, "lock options must not be null");
        if (nodes.size() != 1) {
            throw new IllegalStateException("multi-locks run on one Redis node (or a Sentinel-managed master or a "
                    + "Cluster); this client has " + nodes.size() + " Redlock masters: take a Redlock lock per name "
                    + "with lock(name), always in the same order, or connect a client to one URL");
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one name, e.g. multiLock(\"a\", \"b\")");
        }
        if (names.size() > MAX_MULTI_LOCK_NAMES) {
            throw new IllegalArgumentException("a multi-lock takes at most " + MAX_MULTI_LOCK_NAMES + " names, got "
                    + names.size() + ": lock a name that stands for the group instead");
        }
        refuseReplication(options, "a multi-lock", "lock one name on a replicated master instead");
        refuseFair(options, "a multi-lock", "take a fair lock of each name, always in the same order");
        Set<String> seen = new HashSet<>();
        List<String> keys = new ArrayList<>();
        for (String name : names) {
            String checked = checkName(name);
            if (!seen.add(checked)) {
                throw new IllegalArgumentException("lock name '" + checked + "' is given twice to one multi-lock: "
                        + "name each resource once");
            }
            keys.add(key(checked, options));
        }
        return new MultiNodeLock(node, names, keys, options, contention, timer);
    }

    /**
     * Refuses options that ask {@code what} to be fair, which it is not, saying what to do instead.
     *
     * @throws IllegalArgumentException when the options ask for a fair lock
     */
    private static void refuseFair(LockOptions options, String what, String instead) {
        if (options.fair()) {
            throw new IllegalArgumentException(what + " is not fair, but the lock options ask for a fair lock: "
                    + instead + ", or write LockOptions.withFair(false)");
        }
    }

    /**
     * Refuses options that ask {@code what} to wait for replicas, which it does not do, saying {@code why}.
     *
     * @throws IllegalArgumentException when the options ask for replication
     */
    private static void refuseReplication(LockOptions options, String what, String why) {
        Replication r = LockTerms.replicationOrNone(options);
        if (!r.isNone()) {
            throw new IllegalArgumentException(what + " does not wait for replicas, but the lock options ask for "
                    + r + ": " + why + "; write LockOptions.withReplication(Replication.none()) for it");
        }
    }

    /**
     * Refuses a replica wait that would use up half the TTL: a grant must leave time to use and renew it.
     *
     * @throws IllegalArgumentException when the wait is not below half the TTL
     */
    private static void checkReplicationWait(LockOptions options) {
        Replication r = LockTerms.replicationOrNone(options);
        if (!r.isNone() && r.timeout().multipliedBy(2).compareTo(options.ttl()) >= 0) {
            throw new IllegalArgumentException("the replica timeout " + Durations.format(r.timeout())
                    + " must be below half the lock ttl " + Durations.format(options.ttl())
                    + ": a grant must leave time to use and renew it; write a shorter wait (e.g. 50ms) or a longer ttl");
        }
    }

    /** The key of the lock {@code name}: in the client's namespace, after the prefix of its options. */
    private String key(String name, LockOptions options) {
        return namespace.then(options.keyPrefix()).key(name);
    }

    static String checkName(String name) {
        return Keys.requireName("lock name", name, "name the resource to lock, e.g. \"orders:42\"");
    }
}
