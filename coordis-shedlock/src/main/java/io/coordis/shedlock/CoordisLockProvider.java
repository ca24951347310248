package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.Utils;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;

/**
 * A ShedLock {@link ExtensibleLockProvider} on Coordis locks: a drop-in for ShedLock's Redis providers, safe by
 * default (compare-and-delete, compare-and-extend) and with a fencing number for every execution.
 *
 * <ul>
 *   <li>{@link #lock} tries once and never waits: empty when the job is running elsewhere (or in this JVM).</li>
 *   <li>{@code lockAtMostFor} is the lock's TTL at Redis. Coordis's renewal is off: the lock lasts exactly that
 *       long unless the job extends it ({@link net.javacrumbs.shedlock.core.LockExtender}), as ShedLock promises; a
 *       job still running when it expires is logged (a warning: another instance may have started the job).
 *       A {@code lockAtMostFor} below {@link LockOptions#MIN_TTL} (100 ms) is refused with an
 *       {@link IllegalArgumentException}: it is not rounded up.</li>
 *   <li>{@code unlock()} honours {@code lockAtLeastFor}: the key stays at Redis until {@code lockAtLeastUntil}
 *       and then expires ({@link Lease#releaseAfter}); inside this JVM nothing stays taken.</li>
 *   <li>{@link #currentFencingToken()} gives the running job its execution's fencing number.</li>
 *   <li>A client with three or more URLs locks by Redlock; the provider does not care which.</li>
 * </ul>
 * Keys: Coordis's layout by default (the key is the lock's name, after the client's key prefix); with
 * {@link Builder#shedLockLayout} the layout of ShedLock's own Redis providers (key {@code job-lock:<env>:<name>},
 * value {@code ADDED:<ISO time>@<host>:<token>}), so that instances still on those providers and instances on
 * Coordis exclude each other during a migration.
 *
 * <p>Thread-safe. A busy or unreachable Redis: {@link #lock} throws the client's
 * {@link io.coordis.CoordisException}, naming the lock and the node.
 */
public final class CoordisLockProvider implements ExtensibleLockProvider {
    /** The executions running on each thread, innermost last, as ShedLock's own {@code LockExtender} keeps them. */
    private static final ThreadLocal<Deque<Lease>> RUNNING = ThreadLocal.withInitial(ArrayDeque::new);

    private final Coordis coordis;
    private final LockOptions options;
    private final String keyPrefix;

    private CoordisLockProvider(Builder b) {
        this.coordis = b.coordis;
        LockOptions fixedTtl = b.options.withAutoRenew(false);
        this.options = b.keyPrefix.isEmpty() ? fixedTtl : fixedTtl.withTokenLabel(CoordisLockProvider::shedLockLabel);
        this.keyPrefix = b.keyPrefix;
    }

    /**
     * What ShedLock's Redis providers write before their unique id, {@code ADDED:<ISO time>@<host>:}, with ShedLock's
     * own clock, time format and host name; Coordis's random token takes the id's place.
     */
    private static String shedLockLabel() {
        return "ADDED:" + Utils.toIsoString(ClockProvider.now()) + "@" + Utils.getHostname() + ":";
    }

    /**
     * A provider with Coordis's key layout and default lock options.
     *
     * @param coordis the client whose locks the provider takes
     * @return the provider
     */
    public static CoordisLockProvider of(Coordis coordis) {
        return builder(coordis).build();
    }

    /**
     * Settings for a provider on {@code coordis}: the key layout and the lock options.
     *
     * @param coordis the client whose locks the provider takes
     * @return a new builder
     */
    public static Builder builder(Coordis coordis) {
        return new Builder(coordis);
    }

    /**
     * The fencing number of the execution running on this thread: the lock taken by the innermost job that this
     * provider locked on this thread and has not unlocked yet. Hand it to the resource the job writes to, so that
     * a job that outlived its {@code lockAtMostFor} is refused there. ShedLock's executor unlocks on the thread that
     * locked, which ends the entry; a lock taken by hand and never unlocked stays listed on its thread.
     *
     * @return the fencing number of the innermost lock of this provider held on this thread
     * @throws IllegalStateException when no lock of this provider is held on this thread
     */
    public static long currentFencingToken() {
        Lease lease = RUNNING.get().peekLast();
        if (lease == null) {
            throw new IllegalStateException("no Coordis lock is held on this thread: call currentFencingToken() from "
                    + "a @SchedulerLock method (or a task run by a LockingTaskExecutor) locked by CoordisLockProvider");
        }
        return lease.fencingToken();
    }

    /**
     * Tries the lock {@code configuration} names once, with {@code lockAtMostFor} as its TTL; never waits.
     *
     * @return the lock, or empty when it is held (by another process, or another thread of this one)
     * @throws IllegalArgumentException when {@code lockAtMostFor} is below {@link LockOptions#MIN_TTL}, or above
     *                                  {@link LockOptions#MAX_TTL}, or the name is not a valid lock name
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        String name = configuration.getName();
        Duration ttl = ttl(name, configuration.getLockAtMostFor());
        Optional<Lease> lease = coordis.lock(keyPrefix + name, options.withTtl(ttl)).tryAcquire();
        lease.ifPresent(RUNNING.get()::addLast);
        return lease.map(l -> Execution.started(l, configuration));
    }

    /** {@code lockAtMostFor} of job {@code name}, checked against the TTLs a Coordis lock accepts. */
    static Duration ttl(String name, Duration lockAtMostFor) {
        if (lockAtMostFor.compareTo(LockOptions.MIN_TTL) < 0) {
            throw new IllegalArgumentException("lockAtMostFor of '" + name + "' is " + lockAtMostFor.toMillis()
                    + " ms, below the shortest Coordis lock (" + LockOptions.MIN_TTL.toMillis() + " ms): write "
                    + "lockAtMostFor = \"PT0.1S\" or more (\"100ms\" in @SchedulerLock)");
        }
        if (lockAtMostFor.compareTo(LockOptions.MAX_TTL) > 0) {
            throw new IllegalArgumentException("lockAtMostFor of '" + name + "' is " + lockAtMostFor
                    + ", above the longest Coordis lock (" + LockOptions.MAX_TTL + "): write a shorter lockAtMostFor "
                    + "and extend it while the job runs (LockExtender)");
        }
        return lockAtMostFor;
    }

    /** Ends {@code lease}'s entry among the executions of this thread, if it has one here. */
    static void ended(Lease lease) {
        Deque<Lease> running = RUNNING.get();
        running.removeLastOccurrence(lease);
        if (running.isEmpty()) {
            RUNNING.remove();
        }
    }

    @Override
    public String toString() {
        return "CoordisLockProvider[" + (keyPrefix.isEmpty() ? "Coordis layout" : "keys '" + keyPrefix + "<name>'")
                + ", " + options + "]";
    }

    /** How the provider names its keys and which lock options it starts from. */
    public static final class Builder {
        private final Coordis coordis;
        private LockOptions options = LockOptions.defaults();
        private String keyPrefix = "";

        private Builder(Coordis coordis) {
            this.coordis = Objects.requireNonNull(coordis, "coordis client must not be null");
        }

        /**
         * Keys in the layout of ShedLock's Redis providers, {@code job-lock:<environment>:<name>} (after the
         * client's key prefix, if it has one), holding {@code ADDED:<ISO time>@<host>:<token>} as theirs do, for a
         * fleet where some instances still run those providers; default: Coordis's layout, the name itself holding
         * a random token. Their default environment is {@code default}.
         *
         * @param environment ShedLock's environment, the second part of each key
         * @return this builder
         */
        public Builder shedLockLayout(String environment) {
            return shedLockLayout("job-lock", environment);
        }

        /**
         * Keys {@code <keyPrefix>:<environment>:<name>}, for ShedLock Redis providers given another key prefix.
         *
         * @param keyPrefix   the first part of each key, before the environment
         * @param environment ShedLock's environment, the second part of each key
         * @return this builder
         */
        public Builder shedLockLayout(String keyPrefix, String environment) {
            this.keyPrefix = nonBlank(keyPrefix, "ShedLock key prefix") + ":" + nonBlank(environment, "environment") + ":";
            return this;
        }

        /**
         * The options every lock starts from (holder id, Redlock's node timeout and restart guard, ...); default
         * {@link LockOptions#defaults()}. The provider sets the TTL from {@code lockAtMostFor} and turns renewal off.
         *
         * @param options the options every lock starts from
         * @return this builder
         */
        public Builder lockOptions(LockOptions options) {
            this.options = Objects.requireNonNull(options, "lock options must not be null");
            return this;
        }

        /**
         * The provider with these settings.
         *
         * @return the provider
         */
        public CoordisLockProvider build() {
            return new CoordisLockProvider(this);
        }

        private static String nonBlank(String value, String what) {
            Objects.requireNonNull(value, what + " must not be null");
            if (value.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank; ShedLock's Redis providers use "
                        + ("environment".equals(what) ? "'default'" : "'job-lock'"));
            }
            return value;
        }
    }
}
