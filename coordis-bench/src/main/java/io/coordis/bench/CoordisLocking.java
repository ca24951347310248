package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Coordis's holds as {@link Locking}s: locks with default options (30 s TTL, watchdog renewal, fencing), or the
 * given ones, from one client on one server or a Redlock client over several masters; or any other hold of one
 * client ({@link CoordisShared}). Every hold's fencing number is read.
 */
final class CoordisLocking implements Locking {
    /**
     * How a name is held: a lock, a semaphore or a read lock, by its two ways of taking a hold.
     *
     * @param tryAcquire takes a hold if one is free now
     * @param acquire    takes a hold, waiting as long as it takes
     */
    record Holds(Supplier<Optional<? extends Lease>> tryAcquire, Acquire acquire) {
    }

    /** Takes a hold, waiting as long as it takes. */
    @FunctionalInterface
    interface Acquire {
        Lease acquire() throws InterruptedException;
    }

    private final Coordis coordis;
    private final BiFunction<Coordis, String, Holds> holdsOf;
    private final Map<String, Holds> holds = new ConcurrentHashMap<>();
    private final LongAdder fencing = new LongAdder();

    CoordisLocking(List<String> uris) {
        this(uris, LockOptions.defaults());
    }

    CoordisLocking(List<String> uris, LockOptions options) {
        this(uris.size() == 1 ? Coordis.connect(uris.get(0)) : Coordis.connect(uris), (coordis, name) -> {
            DistributedLock lock = coordis.lock(name, options);
            return new Holds(lock::tryAcquire, lock::acquire);
        });
    }

    /**
     * Holds of {@code coordis}, which this closes.
     *
     * @param holdsOf how a name is held; asked once per name
     */
    CoordisLocking(Coordis coordis, BiFunction<Coordis, String, Holds> holdsOf) {
        this.coordis = coordis;
        this.holdsOf = holdsOf;
    }

    private Holds holds(String name) {
        return holds.computeIfAbsent(name, n -> holdsOf.apply(coordis, n));
    }

    private Lease counted(Lease lease) {
        if (lease != null) {
            fencing.add(lease.fencingToken());
        }
        return lease;
    }

    @Override
    public Object tryLock(String name) {
        return counted(holds(name).tryAcquire().get().orElse(null));
    }

    @Override
    public Object lock(String name) throws InterruptedException {
        return counted(holds(name).acquire().acquire());
    }

    @Override
    public void unlock(Object handle) {
        ((Lease) handle).close();
    }

    @Override
    public void close() {
        coordis.close();
    }
}
