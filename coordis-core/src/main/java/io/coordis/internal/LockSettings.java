package io.coordis.internal;

import io.coordis.Replication;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The values behind {@code io.coordis.lock.LockOptions}, and the checks each one passes before it is kept: every
 * {@code with...} method checks its argument and returns a changed copy, so a value held here is always valid.
 * {@code null} means "not set" for {@code maxHold}, {@code holderId}, {@code nodeTimeout}, {@code tokenLabel} and
 * {@code replication}; the options' getters apply the defaults. Immutable.
 *
 * @param ttl how long the lock lives in Redis without renewal
 * @param autoRenew whether a watchdog extends the lock at a third of its TTL
 * @param maxHold how long to renew at most, or {@code null}
 * @param keyPrefix the explicit prefix before the name; empty for none
 * @param holderId what operators see as the holder, or {@code null} for the process's id
 * @param clockDriftFactor the share of the TTL assumed lost to clock drift
 * @param nodeTimeout how long one Redlock node may take to answer one step, or {@code null} for the default
 * @param retryDelay the longest pause between two Redlock attempts
 * @param retryCount the most Redlock retries per acquire call
 * @param restartGuard whether a restarted Redlock node's vote is refused
 * @param yieldToPollers whether single-node locks yield to clients that poll
 * @param tokenLabel makes the text before each token, or {@code null} for none
 * @param replication the replicas a grant waits for, or {@code null} for the client's
 * @param counterRetention how long the fencing counter is kept after its last number
 * @param fair whether single-node locks go to waiters in arrival order across clients
 */
public record LockSettings(Duration ttl, boolean autoRenew, Duration maxHold, String keyPrefix, String holderId,
                           double clockDriftFactor, Duration nodeTimeout, Duration retryDelay, int retryCount,
                           boolean restartGuard, boolean yieldToPollers, Supplier<String> tokenLabel,
                           Replication replication, Duration counterRetention,
                           boolean fair) {
    /** The smallest TTL accepted. */
    public static final Duration MIN_TTL = Duration.ofMillis(100);
    /** The largest TTL accepted, 30 days. */
    public static final Duration MAX_TTL = Duration.ofDays(30);
    /** The defaults that {@code LockOptions} lists. */
    public static final LockSettings DEFAULTS = new LockSettings(Duration.ofSeconds(30), true, null, "", null, 0.01,
            null, Duration.ofMillis(200), Integer.MAX_VALUE, true, true, null, null, Fencing.DEFAULT_RETENTION, false);
    private static final Duration MAX_DEFAULT_NODE_TIMEOUT = Duration.ofMillis(50);

    public LockSettings withTtl(Duration ttl) {
        return new LockSettings(Durations.between(ttl, MIN_TTL, MAX_TTL, "lock ttl"), autoRenew, maxHold, keyPrefix,
                holderId, clockDriftFactor, nodeTimeout, retryDelay, retryCount, restartGuard, yieldToPollers,
                tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withAutoRenew(boolean autoRenew) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withMaxHold(Duration maxHold) {
        return new LockSettings(ttl, autoRenew, Durations.atLeast(maxHold, MIN_TTL, "max hold"), keyPrefix, holderId,
                clockDriftFactor, nodeTimeout, retryDelay, retryCount, restartGuard, yieldToPollers, tokenLabel,
                replication, counterRetention, fair);
    }

    public LockSettings withKeyPrefix(String keyPrefix) {
        return new LockSettings(ttl, autoRenew, maxHold, Objects.requireNonNull(keyPrefix, "key prefix must not be null"),
                holderId, clockDriftFactor, nodeTimeout, retryDelay, retryCount, restartGuard, yieldToPollers,
                tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withHolderId(String holderId) {
        Objects.requireNonNull(holderId, "holder id must not be null");
        if (holderId.isBlank()) {
            throw new IllegalArgumentException("holder id must not be blank");
        }
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    /** {@code factor} as checked by the caller (the lease session's bound). */
    public LockSettings withClockDriftFactor(double factor) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, factor, nodeTimeout, retryDelay,
                retryCount, restartGuard, yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withNodeTimeout(Duration timeout) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor,
                Durations.atLeast(timeout, Duration.ofMillis(1), "node timeout"), retryDelay, retryCount, restartGuard,
                yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withRetryDelay(Duration delay) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                Durations.atLeast(delay, Duration.ofMillis(1), "retry delay"), retryCount, restartGuard,
                yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withRetryCount(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("retry count must not be negative, was " + count);
        }
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, count, restartGuard, yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withRestartGuard(boolean on) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, on, yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withYieldToPollers(boolean on) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, on, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withTokenLabel(Supplier<String> label) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, yieldToPollers,
                Objects.requireNonNull(label, "token label must not be null"), replication, counterRetention, fair);
    }

    public LockSettings withReplication(Replication replication) {
        Objects.requireNonNull(replication, "replication must not be null (use Replication.none() for no wait)");
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, yieldToPollers, tokenLabel, replication, counterRetention, fair);
    }

    public LockSettings withCounterRetention(Duration retention) {
        Duration checked = Fencing.checkRetention(retention);
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, yieldToPollers, tokenLabel, replication, checked, fair);
    }

    public LockSettings withFair(boolean on) {
        return new LockSettings(ttl, autoRenew, maxHold, keyPrefix, holderId, clockDriftFactor, nodeTimeout,
                retryDelay, retryCount, restartGuard, yieldToPollers, tokenLabel, replication, counterRetention, on);
    }

    /**
     * A random token, after the token label if there is one.
     *
     * @throws IllegalStateException when the token label gives {@code null}
     */
    public String newToken() {
        if (tokenLabel == null) {
            return Tokens.next();
        }
        String label = tokenLabel.get();
        if (label == null) {
            throw new IllegalStateException("the token label of these lock options gave null; give a label that "
                    + "returns text (an empty string for none)");
        }
        return label + Tokens.next();
    }

    /** The holder id as set, else the process's ({@code user@host:pid}). */
    public String holder() {
        return holderId != null ? holderId : Hosts.processId();
    }

    /** The per-node timeout as set, else TTL/10 capped at 50 ms. */
    public Duration nodeTimeoutOrDefault() {
        if (nodeTimeout != null) {
            return nodeTimeout;
        }
        // in nanoseconds: Duration.dividedBy goes through BigDecimal, and this is read on every Redlock step
        long tenth = ttl.toNanos() / 10;
        return tenth < MAX_DEFAULT_NODE_TIMEOUT.toNanos() ? Duration.ofNanos(tenth) : MAX_DEFAULT_NODE_TIMEOUT;
    }
}
