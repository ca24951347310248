package io.coordis.internal;

import io.coordis.Telemetry;
import io.coordis.Ticker;
import io.coordis.internal.redis.RedisNode;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What one client's primitives are built from: its nodes (one, or Redlock's masters), the replicas signals listen
 * on, its key prefix (may be empty), timer (its clock and delayed work), the largest signal it sends, and where it
 * reports its work.
 *
 * <p>The classes built from it ({@code Locks}, {@code Elections}, {@code Queues}, {@code PubSubSignals},
 * {@code Inspector}, {@code Doctor}) sit in exported packages beside the package-private implementations they
 * make, so their constructors, which take internal types, cannot be public. Each hands its constructor to
 * {@link #provide} when the class is initialised, and {@link #make} initialises the class before it looks, so
 * {@code io.coordis.Coordis} builds them across packages. Thread-safe.
 */
public record Wiring(List<RedisNode> nodes, List<RedisNode> replicas, String keyPrefix, Timer timer,
                     int maxSignalBytes, Telemetry telemetry) {
    private static final Map<Class<?>, Function<Wiring, ?>> CONSTRUCTORS = new ConcurrentHashMap<>();

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

    /** For {@code type}'s static initialiser: how to build a {@code type} from a wiring. */
    public static <T> void provide(Class<T> type, Function<Wiring, T> constructor) {
        CONSTRUCTORS.put(type, constructor);
    }

    /** A new {@code type} built from this wiring by the constructor {@code type} provides. */
    public <T> T make(Class<T> type) {
        try {
            Class.forName(type.getName(), true, type.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(type.getName() + " cannot be initialised", e);
        }
        Function<Wiring, ?> constructor = CONSTRUCTORS.get(type);
        if (constructor == null) {
            throw new IllegalStateException(type.getName() + " provides no constructor to Wiring");
        }
        return type.cast(constructor.apply(this));
    }
}
