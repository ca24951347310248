package io.coordis.queue;

import io.coordis.internal.redis.ListCommands;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@link Queue} over plain list commands. Blocking pops borrow a dedicated connection from a small pool
 * (one per concurrent blocking call), so they never hold up other commands.
 */
final class ListQueue extends NamedQueue implements Queue {
    private final String prefix;
    private final String key;
    private final ConcurrentLinkedQueue<ListCommands.Blocking> idle = new ConcurrentLinkedQueue<>();

    /** The queue {@code name} on the list {@code prefix + name}; processing lists get the same prefix. */
    ListQueue(ListCommands lists, String prefix, String name, QueueOptions options) {
        super(lists, name, options);
        this.prefix = prefix;
        this.key = prefix + name;
    }

    @Override
    String key() {
        return key;
    }

    @Override
    long pushChecked(List<byte[]> checked) throws InterruptedException {
        if (checked.isEmpty()) {
            return depth();
        }
        return Payloads.await(lists, lists.lpush(key, checked), name, key);
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
        ListCommands.Blocking b = borrow();
        try {
            byte[] value = b.pop(key, options.order().right(), wait);
            return Optional.ofNullable(value);
        } catch (io.coordis.CoordisException e) {
            throw Payloads.named(lists, e, name, key);
        } finally {
            idle.add(b);
        }
    }

    @Override
    public Optional<byte[]> moveTo(String processingList, Duration wait) throws InterruptedException {
        Payloads.name(processingList);
        if (wait.isZero() || wait.isNegative()) {
            return Optional.ofNullable(Payloads.await(lists, lists.move(key, prefix + processingList,
                    options.order().right()), name, key));
        }
        ListCommands.Blocking b = borrow();
        try {
            return Optional.ofNullable(b.move(key, prefix + processingList, options.order().right(), wait));
        } catch (io.coordis.CoordisException e) {
            throw Payloads.named(lists, e, name, key);
        } finally {
            idle.add(b);
        }
    }

    @Override
    public boolean remove(String processingList, byte[] payload) throws InterruptedException {
        return Payloads.await(lists, lists.lrem(prefix + Payloads.name(processingList), 1, payload),
                processingList, prefix + processingList) > 0;
    }

    @Override
    public long depth() throws InterruptedException {
        return Payloads.await(lists, lists.llen(key), name, key);
    }

    private ListCommands.Blocking borrow() {
        ListCommands.Blocking b = idle.poll();
        return b != null ? b : lists.blocking();
    }

    @Override
    public String toString() {
        return "Queue[" + name + "]";
    }
}
