package io.coordis.testkit.fault;

import io.coordis.testkit.fault.FencedResource.Event;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The requests a recording {@link FencedResource} judged, in its order, with waits for the next one of a verb.
 *
 * <p>Thread-safe: the resource adds under its own lock, tests read and wait on this log's lock (it never takes the
 * resource's, so a wait here cannot hold up a judgement).
 */
final class EventLog {
    private final List<Event> events = new ArrayList<>();

    synchronized void add(Event e) {
        events.add(e);
        notifyAll();
    }

    synchronized List<Event> all() {
        return List.copyOf(events);
    }

    synchronized List<Event> of(String verb) {
        return events.stream().filter(e -> e.verb().equals(verb)).toList();
    }

    /** See {@link FencedResource#await(int, String, String, Duration)}. */
    synchronized Optional<Event> await(int from, String verb, String client, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (int i = from; i < events.size(); i++) {
                Event e = events.get(i);
                if (e.verb().equals(verb) && (client == null || e.client().equals(client))) {
                    return Optional.of(e);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
