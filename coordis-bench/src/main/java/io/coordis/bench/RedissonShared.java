package io.coordis.bench;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Redisson's shared holds with default options, as {@link Locking}s whose names hold {@code permits} at once:
 * {@link RSemaphore} (permits never expire: a holder that dies leaks its permit), {@link RPermitExpirableSemaphore}
 * with a 30 s lease per permit (Coordis's TTL; it has no renewal) and the read side of {@link
 * org.redisson.api.RReadWriteLock} (watchdog renewal, as its locks). Names carry the kind, as {@link CoordisShared}'s.
 */
final class RedissonShared implements Locking {
    /** Which Redisson object a name stands for. */
    enum Kind { SEMAPHORE, PERMIT_EXPIRABLE, READ }

    private static final long LEASE_SECONDS = 30;

    private final RedissonClient client;
    private final Kind kind;
    private final int permits;
    private final Map<String, Object> objects = new ConcurrentHashMap<>();

    RedissonShared(String uri, Kind kind, int permits) {
        this.client = Redisson.create(RedissonLocking.config(uri, null));
        this.kind = kind;
        this.permits = permits;
    }

    private Object of(String name) {
        return objects.computeIfAbsent(name, n -> switch (kind) {
            case SEMAPHORE -> {
                RSemaphore s = client.getSemaphore("redisson-semaphore:" + n);
                s.delete();
                s.trySetPermits(permits);
                yield s;
            }
            case PERMIT_EXPIRABLE -> {
                RPermitExpirableSemaphore s = client.getPermitExpirableSemaphore("redisson-expirable:" + n);
                s.delete();
                s.trySetPermits(permits);
                yield s;
            }
            case READ -> client.getReadWriteLock("redisson-read:" + n).readLock();
        });
    }

    /** A permit of a {@link RPermitExpirableSemaphore}: released by its id. */
    private record Expirable(RPermitExpirableSemaphore semaphore, String id) {
    }

    @Override
    public Object tryLock(String name) {
        Object o = of(name);
        return switch (kind) {
            case SEMAPHORE -> ((RSemaphore) o).tryAcquire() ? o : null;
            case PERMIT_EXPIRABLE -> {
                RPermitExpirableSemaphore s = (RPermitExpirableSemaphore) o;
                String id;
                try {
                    id = s.tryAcquire(0, LEASE_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    yield null;
                }
                yield id == null ? null : new Expirable(s, id);
            }
            case READ -> ((RLock) o).tryLock() ? o : null;
        };
    }

    @Override
    public Object lock(String name) throws InterruptedException {
        Object o = of(name);
        return switch (kind) {
            case SEMAPHORE -> {
                ((RSemaphore) o).acquire();
                yield o;
            }
            case PERMIT_EXPIRABLE -> {
                RPermitExpirableSemaphore s = (RPermitExpirableSemaphore) o;
                yield new Expirable(s, s.acquire(LEASE_SECONDS, TimeUnit.SECONDS));
            }
            case READ -> {
                ((RLock) o).lock();
                yield o;
            }
        };
    }

    @Override
    public void unlock(Object handle) {
        if (handle instanceof Expirable e) {
            e.semaphore().release(e.id());
        } else if (handle instanceof RSemaphore s) {
            s.release();
        } else {
            ((RLock) handle).unlock();
        }
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
