package io.coordis.internal.queue;

import io.coordis.internal.Keys;

import java.util.ArrayList;
import java.util.List;

/**
 * The Redis keys of one queue, as {@link QueueLayout} describes them: the queue itself and the keys Coordis
 * keeps beside it, all in the queue's cluster hash slot ({@link Keys#derived}).
 */
final class QueueKeys {
    final String queue;
    final String registry;
    final String attempts;
    final String dead;
    final String delayed;
    final String delayedData;
    final String enqueued;
    /** Messages acked or dead-lettered, ever: an integer the settle and sweep scripts raise. */
    final String settledCount;

    QueueKeys(String queue) {
        this.queue = queue;
        this.registry = Keys.derived(queue, "consumers");
        this.attempts = Keys.derived(queue, "attempts");
        this.dead = Keys.derived(queue, "dead");
        this.delayed = Keys.derived(queue, "delayed");
        this.delayedData = Keys.derived(queue, "delayed:data");
        this.enqueued = Keys.derived(queue, "enqueued");
        this.settledCount = Keys.derived(queue, "settled");
    }

    String heartbeat(String consumer) {
        return Keys.derived(queue, "hb:" + consumer);
    }

    String slot(String consumer, int index) {
        return Keys.derived(queue, "proc:" + consumer + ":" + index);
    }

    String settled(String consumer) {
        return Keys.derived(queue, "settled:" + consumer);
    }

    List<String> slots(String consumer, int count) {
        List<String> keys = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            keys.add(slot(consumer, i));
        }
        return keys;
    }
}
