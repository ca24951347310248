package io.coordis.testkit.fault;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The first anomalies a {@link FencedResource} saw, each with the resource's time, at most a dozen of each kind so
 * that a flood of one kind cannot hide the first of another.
 *
 * <p>Not thread-safe: the resource calls it under its own lock.
 */
final class Notes {
    /** Notes kept per kind of anomaly. */
    private static final int MAX_PER_KIND = 12;

    private final long origin = System.nanoTime();
    private final List<String> notes = new ArrayList<>();
    private final Map<String, Integer> perKind = new HashMap<>();

    /** The resource's time: nanoseconds since it started. */
    long now() {
        return System.nanoTime() - origin;
    }

    void add(long nanos, String kind, String what) {
        if (perKind.merge(kind, 1, Integer::sum) <= MAX_PER_KIND) {
            notes.add(String.format("t=%.3fms %s", nanos / 1e6, what));
        }
    }

    List<String> list() {
        return List.copyOf(notes);
    }
}
