package io.coordis.internal.queue;

import io.coordis.Replication;
import io.coordis.internal.Failures;
import io.coordis.internal.Replicas;
import io.coordis.internal.redis.ListCommands;
import io.coordis.internal.redis.ReplicatedWrite;
import io.coordis.queue.QueueOptions;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What both kinds of queue share: the name, the options, the list commands, and pushing, where every payload
 * is checked before any is sent, so that a refused batch pushes nothing.
 */
abstract class NamedQueue {
    final ListCommands lists;
    final String name;
    final QueueOptions options;

    /** @throws IllegalArgumentException when the name is empty or too long */
    NamedQueue(ListCommands lists, String name, QueueOptions options) {
        this.name = Payloads.name(name);
        this.lists = lists;
        this.options = options;
    }

    public final String name() {
        return name;
    }

    public final long push(byte[] payload) throws InterruptedException {
        return pushAll(List.of(payload));
    }

    public final long push(String payload) throws InterruptedException {
        return push(Payloads.utf8(payload));
    }

    public final long pushAll(List<byte[]> payloads) throws InterruptedException {
        List<byte[]> checked = Payloads.checked(payloads, options.maxMessageBytes(), name);
        Replication replication = options.replication().orElse(Replication.none());
        if (replication.isNone()) {
            return pushChecked(checked, null);
        }
        // written where the WAIT runs, on a connection of its own: the shared one never waits behind it
        try (ReplicatedWrite<byte[]> on = lists.replicatedWrite()) {
            long length = pushChecked(checked, on);
            String key = key();
            CompletableFuture<Long> acks = on.replicate(key, replication.replicas(), replication.timeout());
            Payloads.await(lists, Replicas.confirm(acks, replication, Failures.object("queue", name), key,
                    lists.addressFor(key), "the messages are in the queue on the master, not taken back, and a "
                            + "failover before they replicate may lose them (pushing again may deliver them twice)"),
                    name, key);
            return length;
        }
    }

    /**
     * Sends {@code payloads}, every one checked already, on {@code on} (for a push that waits for replicas) or on the
     * shared connection when it is {@code null}; answers the queue's length after the push.
     */
    abstract long pushChecked(List<byte[]> payloads, ReplicatedWrite<byte[]> on) throws InterruptedException;

    /** The Redis key of the list that pushes go to. */
    abstract String key();
}
