package io.coordis.micrometer;

import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The queue gauges of one {@link CoordisMetrics}: each watched queue's last {@link QueueStats}, read on a scheduler
 * thread of this object's (made at the first watch, stopped by {@link #close()}). Thread-safe.
 */
final class QueuePolling implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(QueuePolling.class);

    private final MeterRegistry registry;
    /** Watched queues by name; also the strong references the gauges need. */
    private final Map<String, Watched> watched = new ConcurrentHashMap<>();
    private ScheduledExecutorService scheduler;
    private boolean closed;

    QueuePolling(MeterRegistry registry) {
        this.registry = registry;
    }

    void watch(ReliableQueue queue, Duration every) {
        Watched w = new Watched(queue);
        if (watched.putIfAbsent(queue.name(), w) != null) {
            throw new IllegalArgumentException("queue '" + queue.name() + "' is watched already");
        }
        ScheduledExecutorService s;
        synchronized (this) {
            if (closed) {
                watched.remove(queue.name());
                throw new IllegalStateException("these metrics are closed: make a new CoordisMetrics to watch queue '"
                        + queue.name() + "'");
            }
            if (scheduler == null) {
                scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "coordis-metrics");
                    t.setDaemon(true);
                    return t;
                });
            }
            s = scheduler;
        }
        w.register(registry);
        s.scheduleWithFixedDelay(w::poll, 0, every.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void close() {
        ScheduledExecutorService s;
        synchronized (this) {
            closed = true;
            s = scheduler;
        }
        if (s == null) {
            return;
        }
        s.shutdownNow();
        try {
            s.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One watched queue and its last figures ({@code null} before the first poll answered). */
    private static final class Watched {
        private final ReliableQueue queue;
        private volatile QueueStats last;
        private boolean failing;

        Watched(ReliableQueue queue) {
            this.queue = queue;
        }

        void register(MeterRegistry registry) {
            Tags tags = Tags.of("name", queue.name());
            gauge(registry, "coordis.queue.depth", "messages waiting to be taken", tags, QueueStats::depth);
            gauge(registry, "coordis.queue.inflight", "messages in consumers' processing slots", tags,
                    QueueStats::inFlight);
            gauge(registry, "coordis.queue.delayed", "messages parked for a delayed retry", tags, QueueStats::delayed);
            gauge(registry, "coordis.queue.dead", "messages in the dead letters", tags, QueueStats::deadLetters);
            TimeGauge.builder("coordis.queue.oldest.age", this, TimeUnit.MILLISECONDS, w -> {
                        QueueStats s = w.last;
                        return s == null ? Double.NaN : s.oldestAge().map(Duration::toMillis).orElse(0L);
                    })
                    .description("age of the oldest message waiting to be taken").tags(tags).register(registry);
            // kept in Redis by every Coordis consumer of the queue, so its rate is the queue's throughput, not this client's
            FunctionCounter.builder("coordis.queue.settled", this, w -> {
                        QueueStats s = w.last;
                        return s == null ? 0 : s.settled();
                    })
                    .description("messages settled for good by every consumer of the queue: acked or dead-lettered")
                    .tags(tags).register(registry);
        }

        private void gauge(MeterRegistry registry, String name, String description, Tags tags,
                           ToDoubleFunction<QueueStats> figure) {
            Gauge.builder(name, this, w -> {
                QueueStats s = w.last;
                return s == null ? Double.NaN : figure.applyAsDouble(s);
            }).description(description).tags(tags).register(registry);
        }

        void poll() {
            try {
                last = queue.stats();
                if (failing) {
                    failing = false;
                    log.info("reading the figures of queue '{}' works again", queue.name());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                if (!failing) {
                    failing = true;
                    log.warn("reading the figures of queue '{}' failed; its gauges keep the last figures: {}",
                            queue.name(), e.getMessage());
                }
            }
        }
    }
}
