package io.coordis.lock;

import io.coordis.Replication;
import io.coordis.internal.Durations;
import io.coordis.internal.Fencing;
import io.coordis.internal.LockSettings;
import io.coordis.internal.lease.LeaseSession;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a lock behaves. Immutable; each {@code with...} method returns a changed copy.
 *
 * <ul>
 *   <li>{@code ttl} — how long the lock lives in Redis without renewal; default 30 s, at least 100 ms, at
 *       most 30 days.</li>
 *   <li>{@code autoRenew} — a watchdog extends the lock at ttl/3 while the lease is open; default on.</li>
 *   <li>{@code maxHold} — with renewal, stop renewing once the lease has been held this long, so a stuck
 *       holder cannot keep the lock forever; default none (any length is accepted; a very long one never
 *       takes effect).</li>
 *   <li>{@code keyPrefix} — an explicit prefix put before the name to make the key; default none.</li>
 *   <li>{@code holderId} — shown to operators as the holder; default {@code user@host:pid}.</li>
 *   <li>{@code clockDriftFactor} — the share of the TTL assumed lost to clock drift between client and
 *       Redis: validity = TTL − elapsed − (TTL × factor + 2 ms); default 0.01.</li>
 *   <li>{@code yieldToPollers} — single-node locks: after 100 ms of local hand-offs in a row, give the lock back
 *       to Redis and pause briefly, for clients that poll with {@code SET NX} and leave no mark; default on.
 *       Off only when every client of the lock marks its wait (Coordis clients do).</li>
 *   <li>{@code tokenLabel} — text put before each acquisition's random token in the lock's value; default none.</li>
 *   <li>{@code replication} — replicas that must have a grant before it counts; default the client's (none).</li>
 *   <li>{@code fair} — single-node locks: the lock goes to waiting clients in the order they arrived; default off.</li>
 * </ul>
 * Redlock only (locks over several independent masters):
 * <ul>
 *   <li>{@code nodeTimeout} — how long one node may take to answer one step; default TTL/10, at most 50 ms.</li>
 *   <li>{@code retryDelay} — retries wait a random time between half of it and all of it; default 200 ms.</li>
 *   <li>{@code retryCount} — at most this many retries per acquire call; default unlimited (until the wait ends).</li>
 *   <li>{@code restartGuard} — refuse a node's vote until it has been up longer than the largest TTL of
 *       this client's Redlock locks, so a node that restarted without persistence cannot grant a lock it
 *       forgot; default on. Turn off only for nodes with {@code appendfsync always}.</li>
 * </ul>
 */
public final class LockOptions {
    /** The smallest TTL accepted: below it renewal (at a third of the TTL) cannot keep up with a round trip. */
    public static final Duration MIN_TTL = LockSettings.MIN_TTL;
    /**
     * The largest TTL accepted, 30 days. A lock's deadlines are kept in nanoseconds of a monotonic clock, which
     * overflow (and turn into the past) 292 years after the clock's origin, and Redis refuses an expiry that
     * overflows its own arithmetic; a bound far below both keeps every deadline exact. And a holder that dies
     * blocks everybody else for a whole TTL: a lock meant to last longer should be renewed (the default), not
     * set once for months.
     */
    public static final Duration MAX_TTL = LockSettings.MAX_TTL;
    /** How long a name's fencing counter is kept after it last handed out a number, unless set otherwise. */
    public static final Duration DEFAULT_COUNTER_RETENTION = Fencing.DEFAULT_RETENTION;
    /** The shortest counter retention accepted. */
    public static final Duration MIN_COUNTER_RETENTION = Fencing.MIN_RETENTION;
    private static final LockOptions DEFAULTS = new LockOptions(LockSettings.DEFAULTS);

    private final LockSettings settings;

    private LockOptions(LockSettings settings) {
        this.settings = settings;
    }

    /**
     * The defaults listed on this class.
     *
     * @return the default options
     */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param ttl how long the lock lives in Redis without renewal
     * @return a copy with this TTL
     * @throws IllegalArgumentException when {@code ttl} is below {@link #MIN_TTL} or above {@link #MAX_TTL}
     */
    public LockOptions withTtl(Duration ttl) {
        return new LockOptions(settings.withTtl(ttl));
    }

    /**
     * Whether a watchdog extends the lock at a third of its TTL while the lease is open. Default: on.
     *
     * @param autoRenew whether to renew
     * @return a copy with this setting
     */
    public LockOptions withAutoRenew(boolean autoRenew) {
        return new LockOptions(settings.withAutoRenew(autoRenew));
    }

    /**
     * @param maxHold how long to renew at most, from the acquisition
     * @return a copy with this limit
     * @throws IllegalArgumentException when {@code maxHold} is below {@link #MIN_TTL}
     */
    public LockOptions withMaxHold(Duration maxHold) {
        return new LockOptions(settings.withMaxHold(maxHold));
    }

    /**
     * An explicit prefix put before the name to make the key, after the client's key prefix. Default: none.
     *
     * @param keyPrefix the prefix; empty for none
     * @return a copy with this prefix
     */
    public LockOptions withKeyPrefix(String keyPrefix) {
        return new LockOptions(settings.withKeyPrefix(keyPrefix));
    }

    /**
     * @param holderId what operators see as the holder
     * @return a copy with this holder id
     * @throws IllegalArgumentException when {@code holderId} is blank
     */
    public LockOptions withHolderId(String holderId) {
        return new LockOptions(settings.withHolderId(holderId));
    }

    /**
     * @param factor the share of the TTL assumed lost to clock drift
     * @return a copy with this factor
     * @throws IllegalArgumentException unless {@code 0 <= factor < 0.5}
     */
    public LockOptions withClockDriftFactor(double factor) {
        return new LockOptions(settings.withClockDriftFactor(LeaseSession.checkDriftFactor(factor, 0.5)));
    }

    /**
     * @param timeout how long one Redlock node may take to answer one step
     * @return a copy with this timeout
     * @throws IllegalArgumentException when {@code timeout} is below 1 ms
     */
    public LockOptions withNodeTimeout(Duration timeout) {
        return new LockOptions(settings.withNodeTimeout(timeout));
    }

    /**
     * @param delay the longest pause between two Redlock attempts (a random one between half of it and all of it)
     * @return a copy with this delay
     * @throws IllegalArgumentException when {@code delay} is below 1 ms
     */
    public LockOptions withRetryDelay(Duration delay) {
        return new LockOptions(settings.withRetryDelay(delay));
    }

    /**
     * @param count the most Redlock retries per acquire call
     * @return a copy with this count
     * @throws IllegalArgumentException when {@code count} is negative
     */
    public LockOptions withRetryCount(int count) {
        return new LockOptions(settings.withRetryCount(count));
    }

    /**
     * Whether a Redlock node's vote is refused until it has been up longer than the largest TTL of this client's
     * Redlock locks. Default: on; turn it off only for nodes with {@code appendfsync always}.
     *
     * @param on whether to guard against nodes that restarted
     * @return a copy with this setting
     */
    public LockOptions withRestartGuard(boolean on) {
        return new LockOptions(settings.withRestartGuard(on));
    }

    /**
     * Whether a single-node lock's chain of local hand-offs goes back to Redis after 100 ms and lets the next
     * local caller pause 2–10 ms, so that clients that wait by polling {@code SET NX} without marking get a turn
     * (see {@link DistributedLock}); on by default. Clients that wait through Coordis's acquire script (Coordis,
     * or a client in another language speaking its protocol) mark their wait and get their turns either way.
     * Turn it off when only such clients use the lock: on a busy lock the pause sets the slowest waits (with
     * 8 threads of one client, a 99th percentile of about 6-8 ms with it, about 2 ms without; see
     * docs/performance.md). A client that only polls may then wait as long as this client keeps the lock busy.
     *
     * @param on whether to yield to polling clients
     * @return a copy with this setting
     */
    public LockOptions withYieldToPollers(boolean on) {
        return new LockOptions(settings.withYieldToPollers(on));
    }

    /**
     * Text written before each acquisition's random token in the lock's value, asked for at every acquisition: for a
     * layout that other programs expect to read, such as ShedLock's {@code ADDED:<time>@<host>:}. The token stays
     * unique, so compare-and-delete is as safe as without it. Default none; the legacy lock, whose value is a time,
     * ignores it.
     *
     * @param label makes the text, asked at each acquisition; null for none
     * @return a copy with this label
     */
    public LockOptions withTokenLabel(Supplier<String> label) {
        return new LockOptions(settings.withTokenLabel(label));
    }

    /**
     * Wait after each grant at Redis until {@code replication}'s replicas have it (the key, the token and the fencing
     * counter's increment: {@code WAIT} on the connection that wrote them); a grant that too few replicas acknowledged
     * in time is given back (compare-and-delete, waited for) and the acquire fails with a
     * {@link io.coordis.NotReplicatedException}, nothing held. Renewals do not wait: a renewal lost in a failover
     * leaves the replicated grant with its earlier expiry, so the lock lapses sooner (reported to the holder as a
     * loss when its renewal then answers "not ours"), and no second holder is made. Hand-offs between callers of
     * this client pass numbers taken by a grant that was waited for; a new block of them is taken at Redis by a
     * grant that waits. Default: the client's ({@code Coordis.Builder.replication}), which is
     * {@link Replication#none()} unless set. Single-node locks (standalone, Sentinel, Cluster) and read-write locks'
     * write side; Redlock, the legacy lock, read holds and semaphores refuse it.
     *
     * @param replication the replicas a grant waits for
     * @return a copy with this replication
     */
    public LockOptions withReplication(Replication replication) {
        return new LockOptions(settings.withReplication(replication));
    }

    /**
     * Whether the lock goes to waiters in arrival order across processes: a waiter keeps a place in a line at Redis
     * while it waits (a dead one's lapses within seconds); {@code tryAcquire()} wins only when nobody waits.
     * @param on whether the lock is fair
     * @return a copy with this setting
     */
    public LockOptions withFair(boolean on) {
        return new LockOptions(settings.withFair(on));
    }

    /**
     * How long the name's fencing counter ({@code {name}:fence}) is kept after it last handed out a number; then it
     * expires, and the next acquisition takes its number from Redis's clock (milliseconds since 1970 × 1,000), which lies
     * above every number the counter gave, unless the server's clock went back by more than this meanwhile
     * (docs/safety.md, "Fencing numbers"). Longer keeps more keys (one per name used within it); default
     * {@link #DEFAULT_COUNTER_RETENTION}.
     *
     * @param retention how long to keep the counter
     * @return a copy with this retention
     * @throws IllegalArgumentException when below {@link #MIN_COUNTER_RETENTION} or above a day
     */
    public LockOptions withCounterRetention(Duration retention) {
        return new LockOptions(settings.withCounterRetention(retention));
    }

    /**
     * How long the fencing counter is kept after its last number ({@link #withCounterRetention}).
     *
     * @return the retention
     */
    public Duration counterRetention() {
        return settings.counterRetention();
    }

    /**
     * A fresh value for an acquisition: a random token, after the token label if there is one.
     *
     * @return the token
     * @throws IllegalStateException when the token label gives {@code null}
     */
    public String newToken() {
        return settings.newToken();
    }

    /**
     * How long the lock lives in Redis without renewal.
     *
     * @return the TTL
     */
    public Duration ttl() {
        return settings.ttl();
    }

    /**
     * Whether a watchdog extends the lock while the lease is open.
     *
     * @return {@code true} when renewed
     */
    public boolean autoRenew() {
        return settings.autoRenew();
    }

    /**
     * How long a lease is renewed at most.
     *
     * @return the limit, or empty for none
     */
    public Optional<Duration> maxHold() {
        return Optional.ofNullable(settings.maxHold());
    }

    /**
     * The explicit prefix put before the name.
     *
     * @return the prefix, or the empty string
     */
    public String keyPrefix() {
        return settings.keyPrefix();
    }

    /**
     * What operators see as the holder.
     *
     * @return the holder id; {@code user@host:pid} unless set
     */
    public String holderId() {
        return settings.holder();
    }

    /**
     * The share of the TTL assumed lost to clock drift.
     *
     * @return the factor, 0 to below 0.5
     */
    public double clockDriftFactor() {
        return settings.clockDriftFactor();
    }

    /**
     * The per-node timeout: as set, else TTL/10 capped at 50 ms.
     *
     * @return the timeout
     */
    public Duration nodeTimeout() {
        return settings.nodeTimeoutOrDefault();
    }

    /**
     * The longest pause between two Redlock attempts.
     *
     * @return the delay
     */
    public Duration retryDelay() {
        return settings.retryDelay();
    }

    /**
     * Retries per acquire call; {@link Integer#MAX_VALUE} (the default) means until the wait ends.
     *
     * @return the retry count
     */
    public int retryCount() {
        return settings.retryCount();
    }

    /**
     * Whether a restarted Redlock node's vote is refused.
     *
     * @return {@code true} when guarded
     */
    public boolean restartGuard() {
        return settings.restartGuard();
    }

    /**
     * Whether single-node locks yield to polling clients ({@link #withYieldToPollers}).
     *
     * @return {@code true} when they yield
     */
    public boolean yieldToPollers() {
        return settings.yieldToPollers();
    }

    /**
     * Whether the lock goes to waiters in arrival order across processes ({@link #withFair}).
     * @return {@code true} for a fair lock
     */
    public boolean fair() {
        return settings.fair();
    }

    /**
     * The replication set by {@link #withReplication}; empty when the client's default applies.
     *
     * @return the replication, or empty for the client's
     */
    public Optional<Replication> replication() {
        return Optional.ofNullable(settings.replication());
    }

    /**
     * Validity of a lock with {@code lockTtl} under these options, in nanoseconds: the TTL minus the drift allowance
     * (TTL × {@link #clockDriftFactor()} + 2 ms). Added to the start of the request that took or renewed a lease, it
     * gives the lease's deadline.
     *
     * @param lockTtl the lock's time to live
     * @return the validity in nanoseconds
     */
    public long validityNanos(Duration lockTtl) {
        return LeaseSession.validityNanos(lockTtl.toNanos(), settings.clockDriftFactor());
    }

    @Override
    public String toString() {
        Replication replication = settings.replication();
        return "LockOptions[ttl=" + Durations.format(ttl()) + ", autoRenew=" + autoRenew()
                + maxHold().map(d -> ", maxHold=" + Durations.format(d)).orElse("")
                + ", keyPrefix='" + keyPrefix() + "', holderId=" + holderId()
                + (yieldToPollers() ? "" : ", yieldToPollers=false")
                + (replication != null && !replication.isNone() ? ", replication=" + replication : "") + "]";
    }
}
