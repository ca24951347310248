package io.coordis.shedlock;

import io.coordis.lock.Lease;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import java.time.Duration;
import java.util.Optional;

/**
 * One execution's lock: a Coordis lease without renewal. Unlocking leaves the key until {@code lockAtLeastUntil}
 * by a compare-and-pexpire ({@link Lease#releaseAfter}), or deletes it if that time has passed; extending is a
 * compare-and-pexpire to the new {@code lockAtMostFor} and returns a new lock on the same lease (ShedLock marks
 * this one invalid). Like ShedLock's own locks, an instance is used by one thread at a time.
 */
final class Execution extends AbstractSimpleLock {
    private final Lease lease;

    Execution(Lease lease, LockConfiguration configuration) {
        super(configuration);
        this.lease = lease;
    }

    @Override
    protected void doUnlock() {
        try {
            // whole milliseconds, as ShedLock's providers count: less than one left is a plain release
            long keepMillis = Duration.between(ClockProvider.now(), lockConfiguration.getLockAtLeastUntil()).toMillis();
            lease.releaseAfter(Duration.ofMillis(Math.max(0, keepMillis)));
        } finally {
            CoordisLockProvider.ended(lease);
        }
    }

    /** Empty when the lease already ended or its key is no longer ours (expired, or taken since). */
    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration next) {
        Duration ttl = CoordisLockProvider.ttl(next.getName(), next.getLockAtMostFor());
        if (lease.isHeld() && lease.extend(ttl)) {
            return Optional.of(new Execution(lease, next));
        }
        CoordisLockProvider.ended(lease);
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "Execution[" + lockConfiguration.getName() + ", fence " + lease.fencingToken() + "]";
    }
}
