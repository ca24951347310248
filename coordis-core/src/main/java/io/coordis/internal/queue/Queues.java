package io.coordis.internal.queue;

import io.coordis.Telemetry;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;

import java.util.Objects;

/**
 * Makes queues on one Redis node; used by {@link io.coordis.Coordis#queue} and
 * {@link io.coordis.Coordis#reliableQueue}. Thread-safe.
 */
public final class Queues {
    private final RedisNode node;
    private final Namespace namespace;
    private final Timer timer;
    private final Telemetry telemetry;

    /**
     * For {@link io.coordis.Coordis}: queues on {@code node} whose keys are in {@code namespace},
     * heartbeats and sweeps on {@code timer}, reliable queues' messages reported to {@code telemetry}.
     */
    public Queues(RedisNode node, Namespace namespace, Timer timer, Telemetry telemetry) {
        this.node = node;
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.timer = timer;
        this.telemetry = telemetry;
    }

    /**
     * @param name    the list's key
     * @param options the queue's options
     * @return the queue
     * @throws IllegalArgumentException when the name is empty or longer than 1,024 bytes in UTF-8
     */
    public Queue plain(String name, QueueOptions options) {
        Objects.requireNonNull(options, "options must not be null");
        Payloads.name(name);
        return new ListQueue(node.lists(), namespace, name, options, timer);
    }

    /**
     * @param name    the list's key
     * @param options the queue's options
     * @return the queue; nothing consumes until a consumer is started
     * @throws IllegalArgumentException when the name is empty or longer than 1,024 bytes in UTF-8
     */
    public ReliableQueue reliable(String name, QueueOptions options) {
        Payloads.name(name);
        return new SlotQueue(node.lists(), namespace, name, options, timer, telemetry);
    }
}
