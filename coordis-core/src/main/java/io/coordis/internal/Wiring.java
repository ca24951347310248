package io.coordis.internal;

import io.coordis.Telemetry;
import io.coordis.Ticker;
import io.coordis.internal.redis.RedisNode;

import java.util.List;
import java.util.Objects;

/**
 * What one client's primitives are built from: its nodes (one, or Redlock's masters), the replicas signals listen
 * on, its key prefix (may be empty), timer (its clock and delayed work), the largest signal it sends, and where it
 * reports its work. {@code io.coordis.Coordis} makes one and hands it to the constructors of the factories under
 * {@code io.coordis.internal}. Immutable and thread-safe.
 */
public record Wiring(List<RedisNode> nodes, List<RedisNode> replicas, String keyPrefix, Timer timer,
                     int maxSignalBytes, Telemetry telemetry) {
    public Wiring {
        nodes = List.copyOf(nodes);
        replicas = List.copyOf(replicas);
        Objects.requireNonNull(keyPrefix, "key prefix");
        Objects.requireNonNull(timer, "timer");
        Objects.requireNonNull(telemetry, "telemetry");
    }

    /** The clock every deadline of the client reads. */
    public Ticker ticker() {
        return timer.ticker();
    }
}
