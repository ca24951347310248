package io.coordis.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one implementation does in one scenario, inside a measuring child JVM. The child calls
 * {@link #run} once to warm up (its figures are discarded) and once to measure; between the two, and
 * after the second, no commands are sent, so the runner can count Redis commands around the measured
 * window alone.
 */
interface Workload extends AutoCloseable {

    /**
     * Runs the workload for about {@code duration} and returns its figures. Every figure is a number;
     * {@code ops} (operations completed) must be among them, and {@code seconds} (the time they took).
     */
    Map<String, Double> run(Duration duration) throws Exception;

    /** Stops background work and closes connections. */
    @Override
    void close() throws Exception;

    /** Makes the workload of {@code implementation} against the servers {@code uris} (in order). */
    @FunctionalInterface
    interface Factory {
        Workload create(String implementation, List<String> uris) throws Exception;
    }
}
