package io.coordis.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code coordis.lock.*} properties, bound through {@link CoordisProperties.Lock}: the defaults of the
 * {@code LockOptions} bean. A plain bean: not thread-safe, filled once by the binder at start-up.
 */
public class LockProperties {
    /** How long a lock lives in Redis without renewal; renewed every third of it while held. */
    private Duration ttl = Duration.ofSeconds(30);

    /** Stop renewing once a lock has been held this long, so a stuck holder cannot keep it; none by default. */
    private Duration maxHold;

    /**
     * Whether locks go to their waiters in arrival order across processes; one Redis (or a Sentinel-managed master)
     * only, not Redlock.
     */
    private boolean fair;

    /**
     * How long a lock lives in Redis without renewal ({@code coordis.lock.ttl}).
     *
     * @return the TTL; 30 s by default
     */
    public Duration getTtl() {
        return ttl;
    }

    /**
     * Sets how long a lock lives in Redis without renewal ({@code coordis.lock.ttl}).
     *
     * @param ttl the TTL; 30 s by default
     */
    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    /**
     * How long a lock is renewed at most ({@code coordis.lock.max-hold}).
     *
     * @return the limit; {@code null} for none
     */
    public Duration getMaxHold() {
        return maxHold;
    }

    /**
     * Sets how long a lock is renewed at most ({@code coordis.lock.max-hold}).
     *
     * @param maxHold the limit; {@code null} for none
     */
    public void setMaxHold(Duration maxHold) {
        this.maxHold = maxHold;
    }

    /**
     * Whether locks go to their waiters in arrival order ({@code coordis.lock.fair}).
     *
     * @return {@code false} by default
     */
    public boolean isFair() {
        return fair;
    }

    /**
     * Sets whether locks go to their waiters in arrival order ({@code coordis.lock.fair}).
     *
     * @param fair {@code false} by default; {@code true} needs one Redis, not Redlock
     */
    public void setFair(boolean fair) {
        this.fair = fair;
    }
}
