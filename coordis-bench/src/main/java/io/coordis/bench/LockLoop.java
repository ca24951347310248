package io.coordis.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntUnaryOperator;

/**
 * Closed-loop lock cycles: each of {@code threads} threads repeats acquire, a tiny critical section,
 * release, on the key its index maps to. The critical section checks mutual exclusion (a violation is
 * counted, not thrown) and bumps a counter, nothing more.
 *
 * <p>Figures: {@code ops}, {@code seconds}, {@code opsPerSec}; whole-cycle latency ({@code cycleP50Us},
 * {@code cycleP99Us}); acquire latency, which under contention is the wait for the lock
 * ({@code acquireP50Us}, {@code acquireP99Us}, {@code acquireMaxUs}); the fewest and most cycles one thread
 * completed ({@code threadMinOps}, {@code threadMaxOps}); in {@link Mode#WAIT}, the hand-off
 * ({@code handoffP50Us}, {@code handoffP99Us}, {@code handoffs}): from the start of one thread's release to the
 * return of the next thread's acquire on that key, counted only when that acquire began before the release did
 * (it was waiting); {@code busy} (a non-waiting acquire found the lock
 * taken), {@code errors} (an acquire or a release threw, e.g. a Redlock quorum lost to node timeouts on
 * an overloaded machine; the run fails only when errors outnumber successes) and {@code violations} (more holders at once than the key admits: two, for a lock).
 */
final class LockLoop implements Workload {
    /** Whether an acquire may wait for the lock ({@code WAIT}) or must find it free ({@code TRY}). */
    enum Mode { TRY, WAIT }

    private static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final Locking locking;
    private final int threads;
    private final String prefix;
    private final IntUnaryOperator keyOfThread;
    private final Mode mode;
    /** How many may hold one key at once: 1 for a lock, the permits of a semaphore, unbounded for read holds. */
    private final int capacity;
    private final AtomicInteger[] holders;
    /** Per key, {@link System#nanoTime()} just before the last release began. */
    private final AtomicLongArray releaseStarted;
    private final AtomicLong violations = new AtomicLong();
    private final AtomicLong busy = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile boolean stop;
    private long sink;

    /**
     * @param keyOfThread maps a thread index (0 … threads−1) to a key index; the key is {@code prefix + index}
     * @param keys        how many distinct key indexes {@code keyOfThread} can return
     */
    LockLoop(Locking locking, int threads, String prefix, int keys, IntUnaryOperator keyOfThread, Mode mode) {
        this(locking, threads, prefix, keys, keyOfThread, mode, 1);
    }

    /** @param capacity how many holders one key admits at once; more is counted as a violation */
    LockLoop(Locking locking, int threads, String prefix, int keys, IntUnaryOperator keyOfThread, Mode mode,
            int capacity) {
        this.capacity = capacity;
        this.locking = locking;
        this.threads = threads;
        this.prefix = prefix;
        this.keyOfThread = keyOfThread;
        this.mode = mode;
        this.holders = new AtomicInteger[keys];
        this.releaseStarted = new AtomicLongArray(keys);
        for (int i = 0; i < keys; i++) {
            holders[i] = new AtomicInteger();
        }
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        stop = false;
        violations.set(0);
        busy.set(0);
        errors.set(0);
        Histogram[] cycle = new Histogram[threads];
        Histogram[] acquire = new Histogram[threads];
        Histogram[] handoff = new Histogram[threads];
        long[] counts = new long[threads];
        Throwable[] failure = new Throwable[1];
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            cycle[t] = new Histogram(MAX_NANOS, 3);
            acquire[t] = new Histogram(MAX_NANOS, 3);
            handoff[t] = new Histogram(MAX_NANOS, 3);
            workers[t] = new Thread(() -> {
                try {
                    loop(index, cycle[index], acquire[index], handoff[index], counts);
                } catch (Throwable e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                    stop = true;
                }
            }, "bench-" + t);
        }
        long start = System.nanoTime();
        for (Thread w : workers) {
            w.start();
        }
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        stop = true;
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
            if (w.isAlive()) {
                throw new IllegalStateException(w.getName() + " did not finish its cycle within 60 s");
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        synchronized (failure) {
            if (failure[0] != null) {
                throw new IllegalStateException("a worker failed: " + failure[0], failure[0]);
            }
        }
        Histogram allCycles = new Histogram(MAX_NANOS, 3);
        Histogram allAcquires = new Histogram(MAX_NANOS, 3);
        Histogram allHandoffs = new Histogram(MAX_NANOS, 3);
        long ops = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int t = 0; t < threads; t++) {
            allCycles.add(cycle[t]);
            allAcquires.add(acquire[t]);
            allHandoffs.add(handoff[t]);
            ops += counts[t];
            min = Math.min(min, counts[t]);
            max = Math.max(max, counts[t]);
        }
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ops", (double) ops);
        out.put("seconds", seconds);
        out.put("opsPerSec", ops / seconds);
        out.put("cycleP50Us", allCycles.getValueAtPercentile(50) / 1e3);
        out.put("cycleP99Us", allCycles.getValueAtPercentile(99) / 1e3);
        out.put("acquireP50Us", allAcquires.getValueAtPercentile(50) / 1e3);
        out.put("acquireP99Us", allAcquires.getValueAtPercentile(99) / 1e3);
        out.put("acquireMaxUs", allAcquires.getMaxValue() / 1e3);
        if (mode == Mode.WAIT) {
            out.put("handoffs", (double) allHandoffs.getTotalCount());
        }
        if (allHandoffs.getTotalCount() > 0) {
            out.put("handoffP50Us", allHandoffs.getValueAtPercentile(50) / 1e3);
            out.put("handoffP99Us", allHandoffs.getValueAtPercentile(99) / 1e3);
        }
        out.put("threads", (double) threads);
        out.put("threadMinOps", (double) min);
        out.put("threadMaxOps", (double) max);
        out.put("busy", (double) busy.get());
        out.put("violations", (double) violations.get());
        out.put("errors", (double) errors.get());
        if (errors.get() > ops) {
            throw new IllegalStateException(errors.get() + " acquire attempts failed and only " + ops + " succeeded");
        }
        return out;
    }

    private void loop(int thread, Histogram cycle, Histogram acquire, Histogram handoff, long[] counts)
            throws InterruptedException {
        int keyIndex = keyOfThread.applyAsInt(thread);
        String key = prefix + keyIndex;
        AtomicInteger holding = holders[keyIndex];
        boolean waits = mode == Mode.WAIT;
        long done = 0;
        long local = 0;
        while (!stop) {
            long t0 = System.nanoTime();
            Object handle;
            try {
                handle = waits ? locking.lock(key) : locking.tryLock(key);
            } catch (RuntimeException e) {
                // e.g. a Redlock node timeout on an overloaded machine: counted, reported, not fatal
                if (errors.getAndIncrement() == 0) {
                    System.err.println("first failed acquire: " + e);
                }
                continue;
            }
            long t1 = System.nanoTime();
            if (handle == null) {
                busy.incrementAndGet();
                continue;
            }
            if (waits) {
                long released = releaseStarted.get(keyIndex);
                if (released - t0 > 0 && t1 - released >= 0) { // a release began while this acquire waited
                    handoff.recordValue(Math.min(t1 - released, MAX_NANOS));
                }
            }
            if (holding.incrementAndGet() > capacity) {
                violations.incrementAndGet();
            }
            local += handle.hashCode();
            holding.decrementAndGet();
            if (waits) {
                releaseStarted.set(keyIndex, System.nanoTime());
            }
            try {
                locking.unlock(handle);
            } catch (RuntimeException e) {
                // e.g. no Redlock node answered the release in time: the key expires by its TTL; counted like a
                // failed acquire, not fatal
                if (errors.getAndIncrement() == 0) {
                    System.err.println("first failed release: " + e);
                }
            }
            long t2 = System.nanoTime();
            acquire.recordValue(Math.min(t1 - t0, MAX_NANOS));
            cycle.recordValue(Math.min(t2 - t0, MAX_NANOS));
            done++;
        }
        synchronized (this) {
            counts[thread] = done;
            sink += local;
        }
    }

    @Override
    public void close() {
        locking.close();
    }
}
