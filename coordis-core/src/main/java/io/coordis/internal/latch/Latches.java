package io.coordis.internal.latch;

import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Keys;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.Node;
import io.coordis.latch.CountDownLatch;

import java.time.Duration;
import java.util.Objects;

/**
 * Makes the count-down latches of a client, on one node, in its namespace; {@code Coordis} builds it. Thread-safe.
 */
public final class Latches {
    private final Node node;
    private final Namespace namespace;
    private final Timer timer;
    private final Telemetry telemetry;

    /**
     * Latches on {@code node} (the client's first), named in {@code namespace}, with deadlines on {@code timer},
     * reporting to {@code telemetry}.
     */
    public Latches(Node node, Namespace namespace, Timer timer, Telemetry telemetry) {
        this.node = Objects.requireNonNull(node, "node");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    }

    /**
     * The latch {@code name}, which a first use stores with {@code count}.
     *
     * @throws IllegalArgumentException when the name is blank, too long or another object's key, the count is below
     *                                  1 or above {@link CountDownLatch#MAX_COUNT}, or {@code expireAfter} is not
     *                                  between 1 ms and 30 days
     */
    public CountDownLatch latch(String name, long count, Duration expireAfter) {
        Keys.requireName("latch name", name, "name the latch, e.g. \"batch:42\"");
        if (count < 1) {
            throw new IllegalArgumentException("latch count must be at least 1, but was " + count
                    + " (a latch that starts open has nothing to wait for)");
        }
        if (count > CountDownLatch.MAX_COUNT) {
            throw new IllegalArgumentException("latch count must be at most " + CountDownLatch.MAX_COUNT
                    + " (CountDownLatch.MAX_COUNT, what Redis's scripts count exactly), but was " + count
                    + "; count batches of work rather than single items");
        }
        Duration expiry = Durations.between(expireAfter, Duration.ofMillis(1), CountDownLatch.MAX_EXPIRY,
                "latch expiry");
        String stored = namespace.key(name);
        return new ExpiringLatch(node, timer, telemetry, name, LatchLayout.key(stored),
                LatchLayout.channel(namespace.channel(name)), count, expiry);
    }
}
