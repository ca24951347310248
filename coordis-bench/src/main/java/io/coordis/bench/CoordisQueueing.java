package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.Outcome;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Coordis reliable queue ({@link ReliableQueue}) with default options: one {@link Consumer} per
 * consumer name (heartbeat, processing slots, sweeps), started on its first take. With {@code batch} 1 it
 * is used per message ({@code push}, {@code take(wait)}, {@code Delivery.ackAndTake(wait)}: the ack and the next
 * take in one round trip while messages are ready); with more, through the
 * batch API ({@code pushAll}, {@code take(max, wait)}, {@code Consumer.ack(list)}), one round trip each.
 * An ack that does not answer {@link Outcome#ACKED} fails the run.
 */
final class CoordisQueueing implements Queueing {
    private final Coordis coordis;
    private final int batch;
    private final Map<String, ReliableQueue> queues = new ConcurrentHashMap<>();
    private final Map<String, Consumer> consumers = new ConcurrentHashMap<>();
    /** Deliveries taken and not yet acked, by consumer name and message. */
    private final Map<String, Delivery> taken = new ConcurrentHashMap<>();

    CoordisQueueing(String uri, int batch) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1, was " + batch);
        }
        this.coordis = Coordis.connect(uri);
        this.batch = batch;
    }

    private ReliableQueue queue(String name) {
        return queues.computeIfAbsent(name, n -> coordis.reliableQueue(n, QueueOptions.defaults().withSlots(Math.max(16, batch))));
    }

    private Consumer consumer(String queue, String name) {
        return consumers.computeIfAbsent(queue + "\n" + name, k -> {
            try {
                return queue(queue).consumer();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting consumer " + name, e);
            }
        });
    }

    @Override
    public int batch() {
        return batch;
    }

    @Override
    public void push(String queue, String message) {
        pushAll(queue, List.of(message));
    }

    @Override
    public void pushAll(String queue, List<String> messages) {
        try {
            if (messages.size() == 1) {
                queue(queue).push(messages.get(0));
            } else {
                queue(queue).pushAll(messages.stream().map(m -> m.getBytes(StandardCharsets.UTF_8)).toList());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pushing", e);
        }
    }

    @Override
    public String take(String queue, String consumer, Duration timeout) throws InterruptedException {
        List<String> got = takeSome(queue, consumer, 1, timeout);
        return got.isEmpty() ? null : got.get(0);
    }

    @Override
    public List<String> takeSome(String queue, String consumer, int max, Duration timeout) throws InterruptedException {
        Consumer c = consumer(queue, consumer);
        List<Delivery> got = max == 1 ? c.take(timeout).map(List::of).orElse(List.of()) : c.take(max, timeout);
        List<String> messages = new ArrayList<>(got.size());
        for (Delivery d : got) {
            String m = d.text();
            taken.put(consumer + "\n" + m, d);
            messages.add(m);
        }
        return messages;
    }

    @Override
    public void ack(String queue, String consumer, String message) {
        ackAll(queue, consumer, List.of(message));
    }

    @Override
    public void ackAll(String queue, String consumer, List<String> messages) {
        List<Delivery> deliveries = new ArrayList<>(messages.size());
        for (String m : messages) {
            Delivery d = taken.remove(consumer + "\n" + m);
            if (d == null) {
                throw new IllegalStateException("consumer " + consumer + " acks a message it did not take: " + m);
            }
            deliveries.add(d);
        }
        try {
            List<Outcome> outcomes = deliveries.size() == 1 ? List.of(deliveries.get(0).ack())
                    : consumer(queue, consumer).ack(deliveries);
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i) != Outcome.ACKED) {
                    throw new IllegalStateException("ack of " + deliveries.get(i) + " answered " + outcomes.get(i));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while acking", e);
        }
    }

    /** {@link Delivery#ackAndTake}: the ack and the next take in one round trip when a message is ready. */
    @Override
    public String ackAndTake(String queue, String consumer, String message, Duration timeout)
            throws InterruptedException {
        Delivery d = taken.remove(consumer + "\n" + message);
        if (d == null) {
            throw new IllegalStateException("consumer " + consumer + " acks a message it did not take: " + message);
        }
        Optional<Delivery> next = d.ackAndTake(timeout);
        if (d.outcome() != Outcome.ACKED) {
            throw new IllegalStateException("ack of " + d + " answered " + d.outcome());
        }
        if (next.isEmpty()) {
            return null;
        }
        String m = next.get().text();
        taken.put(consumer + "\n" + m, next.get());
        return m;
    }

    @Override
    public long pending(String queue, List<String> consumerNames) {
        try {
            QueueStats stats = queue(queue).stats();
            return stats.depth() + stats.inFlight() + stats.delayed() + stats.deadLetters();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading queue figures", e);
        }
    }

    @Override
    public void close() {
        consumers.values().forEach(Consumer::close);
        coordis.close();
    }
}
