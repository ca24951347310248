package io.coordis.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * The {@code coordis.queue.*} properties, bound through {@link CoordisProperties.Queue}: the defaults of the
 * {@code QueueOptions} bean. A plain bean: not thread-safe, filled once by the binder at start-up.
 */
public class QueueProperties {
    /** A message whose delivery failed this many times goes to the dead letters. */
    private int maxAttempts = 5;

    /** How long a consumer's heartbeat lives without renewal; then its in-flight messages go back. */
    private Duration heartbeatTtl = Duration.ofSeconds(10);

    /** How often consumers look for dead consumers and due delayed retries. */
    private Duration sweepInterval = Duration.ofSeconds(2);

    /** How many deliveries one consumer may hold at once (1 to 1024). */
    private int slots = 16;

    /** The largest message in bytes; larger ones are refused before anything is sent. */
    private int maxMessageBytes = 1048576;

    /**
     * How many failed deliveries send a message to the dead letters ({@code coordis.queue.max-attempts}).
     *
     * @return the count; 5 by default
     */
    public int getMaxAttempts() {
        return maxAttempts;
    }

    /**
     * Sets how many failed deliveries send a message to the dead letters ({@code coordis.queue.max-attempts}).
     *
     * @param maxAttempts the count; 5 by default
     */
    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    /**
     * How long a consumer's heartbeat lives without renewal ({@code coordis.queue.heartbeat-ttl}).
     *
     * @return the TTL; 10 s by default
     */
    public Duration getHeartbeatTtl() {
        return heartbeatTtl;
    }

    /**
     * Sets how long a consumer's heartbeat lives without renewal ({@code coordis.queue.heartbeat-ttl}).
     *
     * @param heartbeatTtl the TTL; 10 s by default
     */
    public void setHeartbeatTtl(Duration heartbeatTtl) {
        this.heartbeatTtl = heartbeatTtl;
    }

    /**
     * How often consumers look for dead consumers and due delayed retries ({@code coordis.queue.sweep-interval}).
     *
     * @return the interval; 2 s by default
     */
    public Duration getSweepInterval() {
        return sweepInterval;
    }

    /**
     * Sets how often consumers look for dead consumers and due delayed retries
     * ({@code coordis.queue.sweep-interval}).
     *
     * @param sweepInterval the interval; 2 s by default
     */
    public void setSweepInterval(Duration sweepInterval) {
        this.sweepInterval = sweepInterval;
    }

    /**
     * How many deliveries one consumer may hold at once ({@code coordis.queue.slots}).
     *
     * @return the count, 1 to 1024; 16 by default
     */
    public int getSlots() {
        return slots;
    }

    /**
     * Sets how many deliveries one consumer may hold at once ({@code coordis.queue.slots}).
     *
     * @param slots the count, 1 to 1024; 16 by default
     */
    public void setSlots(int slots) {
        this.slots = slots;
    }

    /**
     * The largest message accepted ({@code coordis.queue.max-message-bytes}).
     *
     * @return the size in bytes; 1 MiB by default
     */
    public int getMaxMessageBytes() {
        return maxMessageBytes;
    }

    /**
     * Sets the largest message accepted ({@code coordis.queue.max-message-bytes}).
     *
     * @param maxMessageBytes the size in bytes; 1 MiB by default
     */
    public void setMaxMessageBytes(int maxMessageBytes) {
        this.maxMessageBytes = maxMessageBytes;
    }
}
