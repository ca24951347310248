package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Spring Integration lock registry on Coordis, in place of {@code RedisLockRegistry}: the lock for the key
 * {@code orders} is the Coordis lock named {@code <registryKey>:orders} (the Redis key {@code RedisLockRegistry}
 * uses, after the client's key prefix), so the two exclude each other during a migration.
 *
 * <p>Locks are owned by the thread that locked them and reentrant for it, as the {@code Lock} contract and
 * {@code LockRequestHandlerAdvice} expect. Waiting does not poll (a release wakes waiters), and a lock renews itself
 * at a third of its TTL while held, so the TTL bounds how long a crashed holder blocks the others, not how long
 * work may take (turn renewal off in the {@link LockOptions} to get locks that simply expire).
 *
 * <p>A lock lost while held (its key deleted or taken over, or Redis out of reach until its validity ran out) is
 * told at once, before any other process can take it: a WARN log naming the lock and the holding thread, and
 * every {@link LockLossListener}. Its last {@code unlock()} then throws
 * {@link java.util.ConcurrentModificationException}, as Spring Integration's own registries do. The holder's
 * fencing number is {@link #lease(Object)}{@code .fencingToken()}.
 *
 * <p>Thread-safe. Failures of Redis are {@link io.coordis.CoordisException}s naming the lock and the node.
 */
public final class CoordisLockRegistry
        implements ExpirableLockRegistry<DistributedLock>, RenewableLockRegistry<DistributedLock> {
    private static final Logger log = LoggerFactory.getLogger(CoordisLockRegistry.class);

    private final Coordis coordis;
    private final String registryKey;
    private final LockOptions options;
    private final Map<String, RegistryLock> locks = new ConcurrentHashMap<>();
    private final List<LockLossListener> listeners = new CopyOnWriteArrayList<>();

    /**
     * Locks named {@code <registryKey>:<lock key>} with Coordis's default options (TTL 30 s, renewed).
     *
     * @param coordis     the client the locks live on
     * @param registryKey the first part of every lock's name
     */
    public CoordisLockRegistry(Coordis coordis, String registryKey) {
        this(coordis, registryKey, LockOptions.defaults());
    }

    /**
     * Locks named {@code <registryKey>:<lock key>} with {@code options}; their TTL is what {@code lock()},
     * {@code tryLock(...)} and {@link #renewLock(Object)} use when not given one.
     *
     * @param coordis     the client the locks live on
     * @param registryKey the first part of every lock's name
     * @param options     the options of every lock
     * @throws IllegalArgumentException when {@code registryKey} is blank
     */
    public CoordisLockRegistry(Coordis coordis, String registryKey, LockOptions options) {
        this.coordis = Objects.requireNonNull(coordis, "coordis must not be null");
        Objects.requireNonNull(registryKey, "registry key must not be null");
        if (registryKey.isBlank()) {
            throw new IllegalArgumentException("registry key must not be blank: name what the locks guard, "
                    + "e.g. \"orders\" (RedisLockRegistry's registryKey, if you migrate from it)");
        }
        this.registryKey = registryKey;
        this.options = Objects.requireNonNull(options, "lock options must not be null");
    }

    /**
     * The lock for {@code lockKey}; the same object for the same key until {@link #expireUnusedOlderThan} drops it.
     *
     * @throws IllegalArgumentException when {@code lockKey} is not a {@link String}, or blank
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return locks.computeIfAbsent(checkKey(lockKey),
                key -> new RegistryLock(key, registryKey + ":" + key, coordis, options, this));
    }

    /** Drops locks that no thread holds and that were last obtained or acquired more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = System.currentTimeMillis() - age;
        locks.values().removeIf(l -> l.unusedSince(before));
    }

    /** Extends the calling thread's lock on {@code lockKey} to the registry's TTL from now. */
    @Override
    public void renewLock(Object lockKey) {
        renewLock(lockKey, options.ttl());
    }

    /**
     * Extends the calling thread's lock on {@code lockKey} to {@code ttl} from now; its renewals go on with the
     * TTL it was acquired with.
     *
     * @throws IllegalStateException when the calling thread does not hold that lock, or it was lost
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        String key = checkKey(lockKey);
        Lease lease = heldLease(key).orElseThrow(() -> new IllegalStateException("cannot renew lock '" + key
                + "': thread " + Thread.currentThread().getName() + " does not hold it; renew from the thread that "
                + "locked it"));
        if (!lease.extend(ttl)) {
            throw new IllegalStateException("cannot renew lock '" + key + "': it was lost (fencing token "
                    + lease.fencingToken() + " is stale); unlock() will fail");
        }
    }

    /**
     * The calling thread's lease on {@code lockKey}: its fencing number to pass to what the lock protects, and
     * {@link Lease#lost()}. Empty when the calling thread does not hold that lock.
     *
     * @param lockKey the key the lock was obtained with
     * @return the lease, or empty when this thread does not hold the lock
     */
    public Optional<Lease> lease(Object lockKey) {
        return heldLease(checkKey(lockKey));
    }

    /**
     * Adds a listener told at once when a lock of this registry is lost while held.
     *
     * @param listener told of each loss; it must be quick and not block
     */
    public void addLossListener(LockLossListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
    }

    /**
     * Removes a listener added by {@link #addLossListener}; does nothing when it was not added.
     *
     * @param listener the listener to remove
     */
    public void removeLossListener(LockLossListener listener) {
        listeners.remove(listener);
    }

    void lost(String lockKey, Lease lease, String thread) {
        log.warn("lock '{}' of registry '{}' was lost while thread {} held it (fencing token {} is stale); its "
                + "unlock() will fail", lockKey, registryKey, thread, lease.fencingToken());
        for (LockLossListener l : listeners) {
            try {
                l.lost(lockKey, lease);
            } catch (RuntimeException e) {
                log.warn("a lock loss listener failed for lock '{}'", lockKey, e);
            }
        }
    }

    private Optional<Lease> heldLease(String key) {
        RegistryLock lock = locks.get(key);
        return lock == null ? Optional.empty() : lock.lease();
    }

    private static String checkKey(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("lock key must be a String, was "
                    + (lockKey == null ? "null" : "a " + lockKey.getClass().getName())
                    + "; pass a name such as \"orders:42\" (String.valueOf(...) of the id)");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("lock key must not be blank: name the resource, e.g. \"orders:42\"");
        }
        return key;
    }

    @Override
    public String toString() {
        return "CoordisLockRegistry[" + registryKey + ", " + locks.size() + " locks]";
    }
}
