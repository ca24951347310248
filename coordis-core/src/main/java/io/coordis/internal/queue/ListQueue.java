package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.BlockingConnection;
import io.coordis.internal.redis.ListCommands;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.ReplicatedWrite;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueOptions;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@link Queue} over plain list commands. Blocking pops borrow a dedicated connection from a small pool
 * (one per concurrent blocking call), so they never hold up other commands.
 */
final class ListQueue extends NamedQueue implements Queue {
    private final Namespace namespace;
    private final String key;
    private final ConcurrentLinkedQueue<BlockingConnection> idle = new ConcurrentLinkedQueue<>();
    /** The shortest block a blocking pop asks for (Redis reads a zero block as forever). */
    private static final Duration MIN_BLOCK = Duration.ofMillis(1);
    /** The client's clock, for the deadlines of blocking pops. */
    private final Timer timer;

    /** The queue {@code name} on its list in {@code namespace}; processing lists are in the same namespace. */
    ListQueue(ListCommands lists, Namespace namespace, String name, QueueOptions options, Timer timer) {
        super(lists, name, options);
        this.namespace = namespace;
        this.key = namespace.key(name);
        this.timer = timer;
    }

    @Override
    String key() {
        return key;
    }

    @Override
    long pushChecked(List<byte[]> checked, ReplicatedWrite<byte[]> on) throws InterruptedException {
        if (checked.isEmpty()) {
            return depth();
        }
        return Payloads.await(lists, on == null ? lists.lpush(key, checked) : on.lpush(key, checked), name, key);
    }

    @Override
    public Optional<byte[]> pop() throws InterruptedException {
        return pop(1).stream().findFirst();
    }

    @Override
    public List<byte[]> pop(int max) throws InterruptedException {
        if (max < 1) {
            throw new IllegalArgumentException("pop count must be at least 1, was " + max);
        }
        return Payloads.await(lists, lists.pop(key, options.order().right(), max), name, key);
    }

    @Override
    public Optional<byte[]> pop(Duration wait) throws InterruptedException {
        if (wait.isZero() || wait.isNegative()) {
            return pop();
        }
        return Optional.ofNullable(blocking(wait, (b, block) -> b.pop(key, options.order().right(), block)));
    }

    @Override
    public Optional<byte[]> moveTo(String processingList, Duration wait) throws InterruptedException {
        Payloads.name(processingList);
        if (wait.isZero() || wait.isNegative()) {
            return Optional.ofNullable(Payloads.await(lists, lists.move(key, namespace.key(processingList),
                    options.order().right()), name, key));
        }
        return Optional.ofNullable(blocking(wait,
                (b, block) -> b.move(key, namespace.key(processingList), options.order().right(), block)));
    }

    /** A blocking call on a connection of its own. */
    @FunctionalInterface
    private interface BlockingCall {
        byte[] call(BlockingConnection connection, Duration block) throws InterruptedException;
    }

    /**
     * {@code call} blocking for what is left of {@code wait}, tried again after a transient failure while the wait
     * lasts ({@link Outages}): a consumer keeps consuming across a Redis restart. A failure after the command went
     * out may have cost the popped message, as it always could on a plain list.
     */
    private byte[] blocking(Duration wait, BlockingCall call) throws InterruptedException {
        try {
            return Outages.retrying(timer.ticker(), wait, left -> {
                BlockingConnection b = borrow();
                try {
                    return call.call(b, left.compareTo(MIN_BLOCK) < 0 ? MIN_BLOCK : left);
                } finally {
                    idle.add(b);
                }
            });
        } catch (CoordisException e) {
            throw Payloads.named(lists, e, name, key);
        }
    }

    @Override
    public boolean remove(String processingList, byte[] payload) throws InterruptedException {
        return Payloads.await(lists, lists.lrem(namespace.key(Payloads.name(processingList)), 1, payload),
                processingList, namespace.key(processingList)) > 0;
    }

    @Override
    public long depth() throws InterruptedException {
        return Payloads.await(lists, lists.llen(key), name, key);
    }

    private BlockingConnection borrow() {
        BlockingConnection b = idle.poll();
        return b != null ? b : lists.blocking();
    }

    @Override
    public String toString() {
        return "Queue[" + name + "]";
    }
}
