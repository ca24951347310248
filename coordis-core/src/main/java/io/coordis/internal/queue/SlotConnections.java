package io.coordis.internal.queue;

import io.coordis.internal.redis.BlockingConnection;
import io.coordis.internal.redis.ListCommands;

/**
 * The blocking connections of one {@link SlotConsumer}'s slots: one per slot, opened on its first blocking move, so
 * a {@code BLMOVE} waiting in one slot never holds up another slot or the shared connection. None opens once the
 * consumer's {@link SlotPool} is closed, and {@link #retire} ends every one that did. Thread-safe.
 */
final class SlotConnections {
    private final ListCommands lists;
    private final SlotPool pool;
    private final BlockingConnection[] blocking; // guarded by itself

    SlotConnections(ListCommands lists, SlotPool pool, int slots) {
        this.lists = lists;
        this.pool = pool;
        this.blocking = new BlockingConnection[slots];
    }

    /**
     * The slot's connection, opened now when it has none.
     *
     * @throws IllegalStateException when the consumer is closed
     */
    BlockingConnection open(int slot) {
        synchronized (blocking) {
            if (pool.closed()) {
                throw pool.closedFailure();
            }
            if (blocking[slot] == null) {
                blocking[slot] = lists.blocking();
            }
            return blocking[slot];
        }
    }

    /** The slot's connection, or {@code null} when it has none yet or the consumer is closed. */
    BlockingConnection existing(int slot) {
        synchronized (blocking) {
            return pool.closed() ? null : blocking[slot];
        }
    }

    /**
     * Retires every connection opened: a blocked move returns at once. Call it after the pool is closed.
     *
     * @return whether every connection confirmed that its commands ended
     */
    boolean retire() {
        boolean confirmed = true;
        synchronized (blocking) {
            for (BlockingConnection b : blocking) {
                if (b != null) {
                    confirmed &= b.retire();
                }
            }
        }
        return confirmed;
    }
}
