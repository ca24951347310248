package io.coordis.spring.integration;

import io.coordis.lock.Lease;

/**
 * Told when a lock of a {@link CoordisLockRegistry} is lost while a thread still holds it: its renewal found the
 * key gone or taken by someone else, or its validity ran out unrenewed. The holder's {@code unlock()} will throw
 * {@link java.util.ConcurrentModificationException}; this call comes at once, so the work can stop before then.
 */
@FunctionalInterface
public interface LockLossListener {

    /**
     * The lock obtained with {@code lockKey} was lost; {@code lease} is the lost acquisition (its fencing number is
     * now stale). Called on the client's internal thread: be quick and do not block (interrupt the holder, flag
     * its work, hand off to an executor).
     *
     * @param lockKey the key the lock was obtained with
     * @param lease   the lost acquisition
     */
    void lost(String lockKey, Lease lease);
}
