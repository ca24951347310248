package io.coordis.internal.inspect;

import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LatchState;
import io.coordis.inspect.LockState;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.ObjectState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.RateLimiterState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import io.coordis.internal.redis.RedisNode;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@link Inspector} of a client: finds objects with {@code SCAN} and {@code PUBSUB CHANNELS}, reads each with
 * one read-only script per node and assembles the states from the primitives' layouts. Each kind is registered
 * once, as a {@link StateReader} ({@link LockStates}, {@link ElectionStates}, {@link QueueStates},
 * {@link SemaphoreStates}, {@link SignalStates}, {@link RateLimiterStates}, {@link LatchStates}); listing any kind
 * is the same two steps, find the names, then read what was found, and the typed methods are those steps for one
 * kind. Thread-safe.
 */
public final class ScanningInspector implements Inspector {
    private final Map<ObjectKind, StateReader<?>> readers = new EnumMap<>(ObjectKind.class);

    /** The inspector of a client with {@code nodes}: locks are read on every node, the rest on the first. */
    public ScanningInspector(List<RedisNode> nodes) {
        Keyspace keyspace = new Keyspace(nodes);
        for (StateReader<?> reader : List.of(new LockStates(keyspace), new ElectionStates(keyspace),
                new QueueStates(keyspace), new SignalStates(keyspace), new SemaphoreStates(keyspace),
                new RateLimiterStates(keyspace), new LatchStates(keyspace))) {
            readers.put(reader.kind(), reader);
        }
    }

    @Override
    public List<ObjectState> list(ObjectKind kind, String glob) throws InterruptedException {
        return List.copyOf(listed(kind, glob));
    }

    @Override
    public Optional<ObjectState> read(ObjectKind kind, String name) throws InterruptedException {
        return one(kind, name).map(ObjectState.class::cast);
    }

    @Override
    public List<LockState> locks(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.LOCK, glob), LockState.class);
    }

    @Override
    public Optional<LockState> lock(String name) throws InterruptedException {
        return one(ObjectKind.LOCK, name).map(LockState.class::cast);
    }

    @Override
    public List<ElectionState> elections(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.ELECTION, glob), ElectionState.class);
    }

    @Override
    public Optional<ElectionState> election(String name) throws InterruptedException {
        return one(ObjectKind.ELECTION, name).map(ElectionState.class::cast);
    }

    @Override
    public List<QueueState> queues(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.QUEUE, glob), QueueState.class);
    }

    @Override
    public Optional<QueueState> queue(String name) throws InterruptedException {
        return one(ObjectKind.QUEUE, name).map(QueueState.class::cast);
    }

    @Override
    public List<SemaphoreState> semaphores(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.SEMAPHORE, glob), SemaphoreState.class);
    }

    @Override
    public Optional<SemaphoreState> semaphore(String name) throws InterruptedException {
        return one(ObjectKind.SEMAPHORE, name).map(SemaphoreState.class::cast);
    }

    @Override
    public List<SignalState> signals(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.SIGNAL, glob), SignalState.class);
    }

    @Override
    public SignalState signal(String name) throws InterruptedException {
        return one(ObjectKind.SIGNAL, name).map(SignalState.class::cast).orElseThrow();
    }

    @Override
    public List<RateLimiterState> rateLimiters(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.RATE_LIMITER, glob), RateLimiterState.class);
    }

    @Override
    public Optional<RateLimiterState> rateLimiter(String name) throws InterruptedException {
        return one(ObjectKind.RATE_LIMITER, name).map(RateLimiterState.class::cast);
    }

    @Override
    public List<LatchState> latches(String glob) throws InterruptedException {
        return typed(listed(ObjectKind.LATCH, glob), LatchState.class);
    }

    @Override
    public Optional<LatchState> latch(String name) throws InterruptedException {
        return one(ObjectKind.LATCH, name).map(LatchState.class::cast);
    }

    /** The one listing: the names {@code kind} finds for {@code glob}, then what they hold. */
    private List<? extends ObjectState> listed(ObjectKind kind, String glob) throws InterruptedException {
        Glob match = Glob.of(glob);
        StateReader<?> reader = readers.get(kind);
        return reader.readFound(List.copyOf(reader.find(match)));
    }

    /** The one read by name. */
    private Optional<? extends ObjectState> one(ObjectKind kind, String name) throws InterruptedException {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException(kind.singular() + " name must not be blank: give the name of the "
                    + kind.singular());
        }
        return readers.get(kind).read(name);
    }

    private static <S> List<S> typed(List<? extends ObjectState> states, Class<S> type) {
        return states.stream().map(type::cast).toList();
    }
}
