package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Coordis locks with default options (30 s TTL, watchdog renewal, fencing): one client on one server,
 * or a Redlock client over several masters. Every acquisition's fencing number is read.
 */
final class CoordisLocking implements Locking {
    private final Coordis coordis;
    private final Map<String, DistributedLock> locks = new ConcurrentHashMap<>();
    private final LongAdder fencing = new LongAdder();

    CoordisLocking(List<String> uris) {
        this.coordis = uris.size() == 1 ? Coordis.connect(uris.get(0)) : Coordis.connect(uris);
    }

    @Override
    public Object tryLock(String name) {
        Lease lease = locks.computeIfAbsent(name, coordis::lock).tryAcquire().orElse(null);
        if (lease != null) {
            fencing.add(lease.fencingToken());
        }
        return lease;
    }

    @Override
    public Object lock(String name) throws InterruptedException {
        Lease lease = locks.computeIfAbsent(name, coordis::lock).acquire();
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
