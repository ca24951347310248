package io.coordis.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A hot rate limiter: {@code threads} threads ask one limiter name for a permit in a closed loop, under a limit far
 * above what they can reach, so that every decision is a grant and each costs what a grant costs.
 *
 * <p>Figures: {@code ops} (decisions), {@code seconds}, {@code opsPerSec}; latency per decision ({@code p50Us},
 * {@code p99Us}, {@code maxUs}); {@code granted}, {@code denied} (a decision that was not a grant: the limit was
 * reached after all); the fewest and most decisions one thread made ({@code threadMinOps}, {@code threadMaxOps}).
 */
final class RateHot implements Workload {
    private static final long MAX_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final Limiting limiting;
    private final String name;
    private final int threads;
    private volatile boolean stop;

    RateHot(Limiting limiting, String name, int threads) {
        this.limiting = limiting;
        this.name = name;
        this.threads = threads;
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        stop = false;
        Histogram[] latency = new Histogram[threads];
        long[] granted = new long[threads];
        long[] denied = new long[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int index = t;
            latency[t] = new Histogram(MAX_NANOS, 3);
            workers[t] = new Thread(() -> {
                try {
                    while (!stop) {
                        long t0 = System.nanoTime();
                        boolean yes = limiting.tryAcquire(name);
                        latency[index].recordValue(Math.min(System.nanoTime() - t0, MAX_NANOS));
                        if (yes) {
                            granted[index]++;
                        } else {
                            denied[index]++;
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
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
                throw new IllegalStateException(w.getName() + " did not finish its decision within 60 s");
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (failure.get() != null) {
            throw new IllegalStateException("a worker failed: " + failure.get(), failure.get());
        }
        Histogram all = new Histogram(MAX_NANOS, 3);
        long grants = 0;
        long denials = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int t = 0; t < threads; t++) {
            all.add(latency[t]);
            grants += granted[t];
            denials += denied[t];
            min = Math.min(min, granted[t] + denied[t]);
            max = Math.max(max, granted[t] + denied[t]);
        }
        long ops = grants + denials;
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ops", (double) ops);
        out.put("seconds", seconds);
        out.put("opsPerSec", ops / seconds);
        out.put("p50Us", all.getValueAtPercentile(50) / 1e3);
        out.put("p99Us", all.getValueAtPercentile(99) / 1e3);
        out.put("maxUs", all.getMaxValue() / 1e3);
        out.put("granted", (double) grants);
        out.put("denied", (double) denials);
        out.put("threads", (double) threads);
        out.put("threadMinOps", (double) min);
        out.put("threadMaxOps", (double) max);
        return out;
    }

    @Override
    public void close() {
        limiting.close();
    }
}
