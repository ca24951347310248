package io.coordis.queue;

import io.coordis.internal.Keys;

import java.util.ArrayList;
import java.util.List;

/**
 * The Redis keys of one queue: the queue itself (a plain list named exactly as given) and the keys Coordis
 * keeps beside it, all in the queue's cluster hash slot ({@link Keys#derived}). For a queue {@code jobs}:
 * <pre>
 * jobs                      the messages (LPUSH at the left, FIFO consumers take from the right)
 * {jobs}:consumers          registry: consumer id -> "slots lastBeatMs ttlMs retentionMs"
 * {jobs}:hb:ID              a consumer's heartbeat (expires after the heartbeat TTL)
 * {jobs}:proc:ID:K          processing slot K of consumer ID (a list; its rightmost element is delivered)
 * {jobs}:settled:ID         last settled delivery number per slot of consumer ID
 * {jobs}:attempts           failed deliveries per payload (SHA-1)
 * {jobs}:dead               dead letters (a plain list, newest at the left)
 * {jobs}:delayed            delayed retries: token -> due time;  {jobs}:delayed:data  token -> payload
 * {jobs}:enqueued           first enqueue time per payload (SHA-1), written by Coordis producers
 * </pre>
 */
final class QueueKeys {
    final String queue;
    final String registry;
    final String attempts;
    final String dead;
    final String delayed;
    final String delayedData;
    final String enqueued;

    QueueKeys(String queue) {
        this.queue = queue;
        this.registry = Keys.derived(queue, "consumers");
        this.attempts = Keys.derived(queue, "attempts");
        this.dead = Keys.derived(queue, "dead");
        this.delayed = Keys.derived(queue, "delayed");
        this.delayedData = Keys.derived(queue, "delayed:data");
        this.enqueued = Keys.derived(queue, "enqueued");
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
