package io.coordis.shedlock;

import io.coordis.lock.Lease;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Optional;

/**
 * One execution's lock: a Coordis lease without renewal. Unlocking leaves the key until {@code lockAtLeastUntil}
 * by a compare-and-pexpire ({@link Lease#releaseAfter}), or deletes it if that time has passed; extending is a
 * compare-and-pexpire to the new {@code lockAtMostFor} and returns a new lock on the same lease (ShedLock marks
 * this one invalid). Like ShedLock's own locks, an instance is used by one thread at a time.
 */
final class Execution extends AbstractSimpleLock {
    private static final Logger log = LoggerFactory.getLogger(CoordisLockProvider.class);

    private final Lease lease;
    private final Run run;

    /**
     * What the executions of one lease share: the configuration in force (the latest extension's), and whether an
     * extension is under way, or found the lock gone.
     */
    private static final class Run {
        volatile LockConfiguration inForce;
        volatile boolean extending;

        Run(LockConfiguration configuration) {
            this.inForce = configuration;
        }
    }

    private Execution(Lease lease, LockConfiguration configuration, Run run) {
        super(configuration);
        this.lease = lease;
        this.run = run;
    }

    /** The lock of an execution that starts on {@code lease}; its loss while the job runs is logged. */
    static Execution started(Lease lease, LockConfiguration configuration) {
        Run run = new Run(configuration);
        lease.lost().thenRun(() -> expired(run, lease.fencingToken()));
        return new Execution(lease, configuration, run);
    }

    /**
     * Renewal is off, so a lease is lost when {@code lockAtMostFor} runs out with the job still running (an extension
     * refused as "not ours" is told to the job by the extension's empty result instead).
     */
    private static void expired(Run run, long fence) {
        if (run.extending) {
            return;
        }
        LockConfiguration c = run.inForce;
        log.warn("task '{}' (fencing number {}) ran longer than lockAtMostFor ({}): its lock expired at {}, and another "
                + "instance may have started the task; extend the lock while the task runs (LockExtender) or raise "
                + "lockAtMostFor", c.getName(), fence, c.getLockAtMostFor(), c.getLockAtMostUntil());
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
        run.extending = true; // a loss told meanwhile is the refusal's, and the job hears of it from the result
        if (lease.isHeld() && lease.extend(ttl)) {
            run.inForce = next;
            run.extending = false;
            return Optional.of(new Execution(lease, next, run));
        }
        CoordisLockProvider.ended(lease);
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "Execution[" + lockConfiguration.getName() + ", fence " + lease.fencingToken() + "]";
    }
}
