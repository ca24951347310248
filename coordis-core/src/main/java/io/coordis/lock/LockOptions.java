package io.coordis.lock;

import io.coordis.internal.Durations;
import io.coordis.internal.Hosts;

import java.time.Duration;
import java.util.Objects;

/**
 * How a lock behaves. Immutable; each {@code with...} method returns a changed copy.
 *
 * <ul>
 *   <li>{@code ttl} — how long the lock lives in Redis without renewal; default 30 s, at least 100 ms.</li>
 *   <li>{@code autoRenew} — a watchdog extends the lock at ttl/3 while the lease is open; default on.</li>
 *   <li>{@code keyPrefix} — an explicit prefix put before the name to make the key; default none.</li>
 *   <li>{@code holderId} — shown to operators as the holder; default {@code user@host:pid}.</li>
 * </ul>
 */
public final class LockOptions {
    /** The smallest TTL accepted: below it renewal (at a third of the TTL) cannot keep up with a round trip. */
    public static final Duration MIN_TTL = Duration.ofMillis(100);
    private static final LockOptions DEFAULTS = new LockOptions(Duration.ofSeconds(30), true, "", null);

    private final Duration ttl;
    private final boolean autoRenew;
    private final String keyPrefix;
    private final String holderId;

    private LockOptions(Duration ttl, boolean autoRenew, String keyPrefix, String holderId) {
        this.ttl = ttl;
        this.autoRenew = autoRenew;
        this.keyPrefix = keyPrefix;
        this.holderId = holderId;
    }

    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @throws IllegalArgumentException when {@code ttl} is below {@link #MIN_TTL}
     */
    public LockOptions withTtl(Duration ttl) {
        return new LockOptions(Durations.atLeast(ttl, MIN_TTL, "lock ttl"), autoRenew, keyPrefix, holderId);
    }

    public LockOptions withAutoRenew(boolean autoRenew) {
        return new LockOptions(ttl, autoRenew, keyPrefix, holderId);
    }

    public LockOptions withKeyPrefix(String keyPrefix) {
        return new LockOptions(ttl, autoRenew, Objects.requireNonNull(keyPrefix, "key prefix must not be null"), holderId);
    }

    /**
     * @throws IllegalArgumentException when {@code holderId} is blank
     */
    public LockOptions withHolderId(String holderId) {
        Objects.requireNonNull(holderId, "holder id must not be null");
        if (holderId.isBlank()) {
            throw new IllegalArgumentException("holder id must not be blank");
        }
        return new LockOptions(ttl, autoRenew, keyPrefix, holderId);
    }

    public Duration ttl() {
        return ttl;
    }

    public boolean autoRenew() {
        return autoRenew;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public String holderId() {
        return holderId != null ? holderId : Hosts.processId();
    }

    @Override
    public String toString() {
        return "LockOptions[ttl=" + Durations.format(ttl) + ", autoRenew=" + autoRenew + ", keyPrefix='" + keyPrefix
                + "', holderId=" + holderId() + "]";
    }
}
