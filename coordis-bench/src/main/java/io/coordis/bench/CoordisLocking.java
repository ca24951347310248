package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Coordis locks with default options (30 s TTL, watchdog renewal, fencing), or the given ones: one client on
 * one server, or a Redlock client over several masters. Every acquisition's fencing number is read.
 */
final class CoordisLocking implements Locking {
    private final Coordis coordis;
    private final LockOptions options;
    private final Map<String, DistributedLock> locks = new ConcurrentHashMap<>();
    private final LongAdder fencing = new LongAdder();

    CoordisLocking(List<String> uris) {
        this(uris, LockOptions.defaults());
    }

    CoordisLocking(List<String> uris, LockOptions options) {
        this.coordis = uris.size() == 1 ? Coordis.connect(uris.get(0)) : Coordis.connect(uris);
        this.options = options;
    }

    private DistributedLock lockOf(String name) {
        return coordis.lock(name, options);
    }

    @Override
    public Object tryLock(String name) {
        Lease lease = locks.computeIfAbsent(name, this::lockOf).tryAcquire().orElse(null);
        if (lease != null) {
            fencing.add(lease.fencingToken());
        }
        return lease;
    }

    @Override
    public Object lock(String name) throws InterruptedException {
        Lease lease = locks.computeIfAbsent(name, this::lockOf).acquire();
        fencing.add(lease.fencingToken());
        return lease;
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
