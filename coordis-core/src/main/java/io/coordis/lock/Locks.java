package io.coordis.lock;

import io.coordis.Ticker;
import io.coordis.internal.redis.RedisNode;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Creates locks over one client's Redis connection. Obtained from {@code Coordis}; the constructor is
 * not part of the API. Thread-safe.
 */
public final class Locks {
    private final RedisNode node;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final Contention contention;

    public Locks(RedisNode node, Ticker ticker, ScheduledExecutorService scheduler) {
        this.node = node;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.contention = new Contention(new LocalQueue(), ticker);
    }

    /**
     * A lock on {@code name} on a single Redis node (the default kind).
     *
     * @throws IllegalArgumentException when the name is blank
     */
    public DistributedLock singleNode(String name, LockOptions options) {
        return new SingleNodeLock(node, checkName(name), Objects.requireNonNull(options, "lock options must not be null"),
                contention, ticker, scheduler);
    }

    /**
     * A lock on {@code name} in the format of the classic {@code SETNX} pattern, for sharing it with
     * programs that still use that pattern; weaker than {@link #singleNode} (it needs synchronised clocks).
     *
     * @throws IllegalArgumentException when the name is blank
     */
    public DistributedLock legacy(String name, LockOptions options) {
        return new LegacyLock(node, checkName(name), Objects.requireNonNull(options, "lock options must not be null"),
                contention, ticker, scheduler);
    }

    static String checkName(String name) {
        Objects.requireNonNull(name, "lock name must not be null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank: name the resource to lock, e.g. \"orders:42\"");
        }
        return name;
    }
}
