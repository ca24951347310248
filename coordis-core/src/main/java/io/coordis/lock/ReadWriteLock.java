package io.coordis.lock;

import java.util.List;

/**
 * A lock that many readers hold at once, or one writer alone: {@link #readLock()} gives shared holds,
 * {@link #writeLock()} exclusive ones. Both are {@link DistributedLock}s with the whole lock contract: every hold
 * is a {@link Lease}, renewed while its process lives, fenced (readers and writers draw their fencing numbers from
 * the same counter), freed by its TTL when its holder dies, and reported lost when it cannot be renewed.
 *
 * <p>A write hold is the plain lock on the same name ({@code Coordis.lock(name)}): plain locks, {@code coordis lock}
 * and other clients that lock the name with {@code SET NX PX} exclude readers and are excluded by them. Writers are
 * not starved: once a writer waits for readers to leave, new readers wait behind it.
 *
 * <p>Readers of one client never wait for one another: many threads of a process may hold read holds at once.
 *
 * <p>Instances are thread-safe and cheap; they hold no Redis state between calls.
 */
public interface ReadWriteLock {

    /**
     * The resource name as the caller gave it.
     *
     * @return the name
     */
    String name();

    /**
     * Shared holds: granted while no writer holds the lock or waits for it.
     *
     * @return the read side
     */
    DistributedLock readLock();

    /**
     * Exclusive holds: granted while nobody else holds the lock; the plain lock on the same name.
     *
     * @return the write side
     */
    DistributedLock writeLock();

    /**
     * The read holds now, read from Redis, the one lasting longest last; empty while none is held.
     *
     * @return the read holds, the longest lasting last
     */
    List<LockHolder> readers();
}
