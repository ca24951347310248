package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.Semaphore;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Coordis's shared holds with default options (30 s TTL, watchdog renewal, fencing), as {@link Locking}s whose names
 * hold {@code permits} at once: a {@link Semaphore}'s permits, or the read side of a read-write lock. Every hold's
 * fencing number is read. Names carry the kind, so a run never meets another client's key of another type.
 */
final class CoordisShared implements Locking {
    /** Which Coordis object a name stands for. */
    enum Kind { SEMAPHORE, READ }

    private final Coordis coordis;
    private final Kind kind;
    private final int permits;
    private final Map<String, Semaphore> semaphores = new ConcurrentHashMap<>();
    private final Map<String, DistributedLock> reads = new ConcurrentHashMap<>();
    private final LongAdder fencing = new LongAdder();

    CoordisShared(String uri, Kind kind, int permits) {
        this.coordis = Coordis.connect(uri);
        this.kind = kind;
        this.permits = permits;
    }

    private Semaphore semaphore(String name) {
        return semaphores.computeIfAbsent(name, n -> {
            Semaphore s = coordis.semaphore("coordis-semaphore:" + n, permits);
            s.setPermits(permits);
            return s;
        });
    }

    private DistributedLock read(String name) {
        return reads.computeIfAbsent(name, n -> coordis.readWriteLock("coordis-read:" + n).readLock());
    }

    private Lease counted(Lease lease) {
        if (lease != null) {
            fencing.add(lease.fencingToken());
        }
        return lease;
    }

    @Override
    public Object tryLock(String name) {
        return counted(kind == Kind.SEMAPHORE ? semaphore(name).tryAcquire().orElse(null)
                : read(name).tryAcquire().orElse(null));
    }

    @Override
    public Object lock(String name) throws InterruptedException {
        return counted(kind == Kind.SEMAPHORE ? semaphore(name).acquire() : read(name).acquire());
    }

    @Override
    public void unlock(Object handle) {
        ((Lease) handle).close();
    }

    @Override
    public void close() {
        coordis.close();
    }
}
