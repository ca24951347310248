package io.coordis.internal.queue;

import io.coordis.internal.redis.ListCommands;
import io.coordis.queue.QueueStats;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Reads a {@link SlotQueue}'s {@link QueueStats} from its keys: the lengths of the queue, the dead letters and the
 * delayed set, the settled count, the age of the oldest message ({@code oldest.lua}), and every registered consumer's slots and
 * heartbeat. The reads are sent together and answered as they come; they are not one snapshot. Stateless.
 */
final class SlotQueueStats {
    private SlotQueueStats() {
    }

    /** The statistics of queue {@code name}, whose keys are {@code keys}. */
    static QueueStats read(ListCommands lists, QueueKeys keys, String name) throws InterruptedException {
        CompletableFuture<Long> now = lists.timeMillis(keys.queue);
        CompletableFuture<Long> depth = lists.llen(keys.queue);
        CompletableFuture<Long> dead = lists.llen(keys.dead);
        CompletableFuture<Long> delayed = lists.zcard(keys.delayed);
        CompletableFuture<byte[]> settled = lists.get(keys.settledCount);
        CompletableFuture<Object> oldest = lists.eval(SlotQueue.OLDEST, List.of(keys.queue, keys.enqueued),
                List.of(SlotQueue.bytes(SlotQueue.PUSH_CHUNK)));
        CompletableFuture<Map<byte[], byte[]>> registry = lists.hgetall(keys.registry);
        long nowMillis = lists.await(now);
        long depthNow = Payloads.await(lists, depth, name, keys.queue);
        Optional<Duration> age = Optional.empty();
        if (lists.await(oldest) instanceof List<?> at && !at.isEmpty() && at.get(0) instanceof Long ms) {
            age = Optional.of(Duration.ofMillis(Math.max(0, nowMillis - ms)));
        }
        List<QueueStats.ConsumerStats> consumers = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : lists.await(registry).entrySet()) {
            String id = ListCommands.text(e.getKey());
            QueueLayout.Registration reg = QueueLayout.registration(ListCommands.text(e.getValue())).orElse(null);
            if (reg == null) {
                continue;
            }
            CompletableFuture<Long> alive = lists.exists(keys.heartbeat(id));
            List<CompletableFuture<Long>> lengths = new ArrayList<>();
            for (String slot : keys.slots(id, reg.slots())) {
                lengths.add(lists.llen(slot));
            }
            long inFlight = 0;
            for (CompletableFuture<Long> l : lengths) {
                inFlight += lists.await(l);
            }
            consumers.add(new QueueStats.ConsumerStats(id, reg.slots(), inFlight,
                    Instant.ofEpochMilli(reg.lastBeatMillis()), lists.await(alive) > 0));
        }
        consumers.sort(Comparator.comparing(QueueStats.ConsumerStats::id));
        return new QueueStats(name, depthNow, age, lists.await(dead), lists.await(delayed), count(lists.await(settled)),
                consumers);
    }

    /** A counter's value; 0 when absent or not an integer (as queue-state.lua reads it for the inspector). */
    private static long count(byte[] value) {
        try {
            return value == null ? 0 : Long.parseLong(ListCommands.text(value));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
