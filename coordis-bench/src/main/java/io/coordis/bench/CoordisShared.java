package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.bench.CoordisLocking.Holds;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Semaphore;

/**
 * Coordis's shared holds with default options (30 s TTL, watchdog renewal, fencing), as {@link Locking}s whose names
 * hold {@code permits} at once: a {@link Semaphore}'s permits, or the read side of a read-write lock. Every hold's
 * fencing number is read. Names carry the kind, so a run never meets another client's key of another type.
 */
final class CoordisShared {
    /** Which Coordis object a name stands for. */
    enum Kind { SEMAPHORE, READ }

    private CoordisShared() {
    }

    /** A client of {@code uri} whose names are holds of {@code kind}; closing it closes the client. */
    static Locking connect(String uri, Kind kind, int permits) {
        return new CoordisLocking(Coordis.connect(uri), (coordis, name) -> switch (kind) {
            case SEMAPHORE -> {
                Semaphore s = coordis.semaphore("coordis-semaphore:" + name, permits);
                s.setPermits(permits);
                yield new Holds(s::tryAcquire, s::acquire);
            }
            case READ -> {
                DistributedLock read = coordis.readWriteLock("coordis-read:" + name).readLock();
                yield new Holds(read::tryAcquire, read::acquire);
            }
        });
    }
}
