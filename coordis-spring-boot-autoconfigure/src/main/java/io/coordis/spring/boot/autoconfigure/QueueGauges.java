package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.micrometer.CoordisMetrics;
import io.coordis.queue.QueueOptions;

import java.time.Duration;
import java.util.List;

/**
 * The reliable queues of {@code coordis.metrics.queues}, watched by the metrics with the client of the context.
 * Closing it stops the polling, so that it ends before the client closes (Spring closes this bean first, as it
 * depends on the client).
 */
final class QueueGauges implements AutoCloseable {
    private final CoordisMetrics metrics;

    QueueGauges(CoordisMetrics metrics, Coordis coordis, QueueOptions options, List<String> queues, Duration every) {
        this.metrics = metrics;
        if (every == null || every.compareTo(Duration.ofMillis(100)) < 0) {
            throw new ConfigurationProblem("coordis.metrics.poll-interval must be at least 100ms, was " + every,
                    "Set coordis.metrics.poll-interval=10s (queue figures change slowly), or remove it for 10s.");
        }
        for (String name : queues) {
            if (name == null || name.isBlank()) {
                throw new ConfigurationProblem("coordis.metrics.queues has an empty name",
                        "List queue names separated by commas, e.g. coordis.metrics.queues=jobs,emails.");
            }
            if (queues.indexOf(name) != queues.lastIndexOf(name)) {
                throw new ConfigurationProblem("coordis.metrics.queues names the queue '" + name + "' twice",
                        "Name each queue once in coordis.metrics.queues.");
            }
            try {
                metrics.watch(coordis.reliableQueue(name, options), every);
            } catch (IllegalStateException | IllegalArgumentException e) {
                throw new ConfigurationProblem("coordis.metrics.queues: cannot watch the queue '" + name + "': "
                        + e.getMessage(), "Remove '" + name + "' from coordis.metrics.queues, or correct it.", e);
            }
        }
    }

    /** Stops polling the queues (the meters stay registered). */
    @Override
    public void close() {
        metrics.close();
    }
}
