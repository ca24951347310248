package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.OwnedLock;
import org.springframework.integration.support.locks.DistributedLock;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;

/**
 * One lock of a {@link CoordisLockRegistry}: Coordis's thread-owned view of the lock named
 * {@code <registry key>:<lock key>}, acquiring with a TTL of its own when asked, watching each new lease for a
 * loss, and failing the last {@code unlock()} of a lost one. Thread-safe.
 */
final class RegistryLock implements DistributedLock {
    private final String lockKey;
    private final String name;
    private final Coordis coordis;
    private final LockOptions options;
    private final OwnedLock owned;
    private final CoordisLockRegistry registry;
    /** The thread holding the lock through this object, for {@code expireUnusedOlderThan}. */
    private final AtomicReference<Thread> holder = new AtomicReference<>();
    private volatile long lastUsedMillis = System.currentTimeMillis();

    RegistryLock(String lockKey, String name, Coordis coordis, LockOptions options, CoordisLockRegistry registry) {
        this.lockKey = lockKey;
        this.name = name;
        this.coordis = coordis;
        this.options = options;
        this.owned = coordis.lock(name, options).asLock();
        this.registry = registry;
    }

    @Override
    public void lock() {
        boolean first = owned.lease().isEmpty();
        owned.lock();
        acquired(first);
    }

    @Override
    public void lock(Duration ttl) {
        boolean first = owned.lease().isEmpty();
        owned.lock(coordis.lock(name, options.withTtl(ttl)));
        acquired(first);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        boolean first = owned.lease().isEmpty();
        owned.lockInterruptibly();
        acquired(first);
    }

    @Override
    public boolean tryLock() {
        boolean first = owned.lease().isEmpty();
        return owned.tryLock() && acquired(first);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        boolean first = owned.lease().isEmpty();
        return owned.tryLock(time, unit) && acquired(first);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        boolean first = owned.lease().isEmpty();
        return owned.tryLock(coordis.lock(name, options.withTtl(ttl)), waitTime) && acquired(first);
    }

    /**
     * Releases one hold; the last one releases the lock in Redis (compare-and-delete).
     *
     * @throws IllegalMonitorStateException    when the calling thread does not hold the lock
     * @throws ConcurrentModificationException when the lock had been lost while held, as Spring Integration's own
     *                                         registries throw; the thread holds it no longer
     */
    @Override
    public void unlock() {
        Lease lease = owned.lease().orElse(null);
        boolean ours = owned.checkedUnlock();
        if (owned.lease().isEmpty()) {
            holder.compareAndSet(Thread.currentThread(), null);
        }
        if (!ours) {
            throw new ConcurrentModificationException("lock '" + lockKey + "' (Redis key '" + lease.key()
                    + "', fencing token " + lease.fencingToken() + ") was lost while held: it expired, was deleted or "
                    + "was taken over before unlock(); what it protected may have been changed by another holder");
        }
    }

    @Override
    public Condition newCondition() {
        return owned.newCondition();
    }

    /** The lease of the calling thread's hold, if it holds this lock. */
    Optional<Lease> lease() {
        return owned.lease();
    }

    /** Whether no thread holds the lock through this object and it was last used before {@code millis}. */
    boolean unusedSince(long millis) {
        return holder.get() == null && lastUsedMillis < millis;
    }

    private boolean acquired(boolean first) {
        lastUsedMillis = System.currentTimeMillis();
        if (first) {
            holder.set(Thread.currentThread());
            Lease lease = owned.lease().orElseThrow();
            String thread = Thread.currentThread().getName();
            lease.lost().thenRun(() -> registry.lost(lockKey, lease, thread));
        }
        return true;
    }

    @Override
    public String toString() {
        Thread t = holder.get();
        return "CoordisLock[" + name + (t == null ? ", unlocked" : ", held by " + t.getName()) + "]";
    }
}
