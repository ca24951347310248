package io.coordis.testkit.history;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges queue histories as a set: every message id enqueued must be acknowledged or found at the end.
 * Producers record {@code ok enqueue} (value = message id; {@code info enqueue} when the reply was lost and
 * the push may or may not have happened); consumers {@code ok dequeue} and {@code ok ack}; the final read
 * records {@code info ready} for each id still waiting and {@code info stuck} for each id left in a
 * processing list.
 * An {@code invoke ack} that its process never completed (the process died waiting for the reply) may or
 * may not have happened: such ids are <b>indeterminate</b>, not lost. A batch ack records one {@code invoke
 * ack} per id, then an outcome per id ({@code ok}, {@code fail} or {@code info}).
 * <ul>
 *   <li><b>lost</b>: enqueued (ok), never acknowledged (nor an ack left indeterminate), not ready and not
 *       stuck at the end;</li>
 *   <li><b>stuck</b>: left in a processing list at the end;</li>
 *   <li><b>duplicates</b>: deliveries beyond the first of one id (at-least-once: reported, not an error);</li>
 *   <li><b>phantoms</b>: delivered ids that nobody enqueued.</li>
 * </ul>
 */
public final class QueueChecker {
    private QueueChecker() {
    }

    /** The verdict; {@code examples} holds a few offending messages, readable. */
    public record Result(int enqueued, int acknowledged, int indeterminate, int lost, int stuck, int duplicates,
                         int phantoms, List<String> examples) {
        /**
         * Nothing lost, nothing stuck, nothing invented; duplicates are allowed.
         *
         * @return {@code true} when the history is valid
         */
        public boolean valid() {
            return lost == 0 && stuck == 0 && phantoms == 0;
        }
    }

    /**
     * Checks the messages of a history.
     *
     * @param ops the history, oldest first
     * @return the verdict
     */
    public static Result check(List<Op> ops) {
        Set<String> enqueued = new HashSet<>();
        Set<String> maybe = new HashSet<>();
        Set<String> acked = new HashSet<>();
        Set<String> ready = new HashSet<>();
        Set<String> stuck = new HashSet<>();
        Map<String, Integer> deliveries = new HashMap<>();
        Map<String, Set<String>> pendingAck = new HashMap<>(); // actor -> ids whose ack was invoked, not completed
        for (Op op : ops) {
            if (op.f().equals("ack")) {
                Set<String> pending = pendingAck.computeIfAbsent(op.actor(), a -> new HashSet<>());
                if (op.type().equals("invoke")) {
                    pending.add(op.value());
                } else {
                    pending.remove(op.value());
                }
            }
            switch (op.type() + " " + op.f()) {
                case "ok enqueue" -> enqueued.add(op.value());
                case "info enqueue" -> maybe.add(op.value());
                case "ok dequeue" -> deliveries.merge(op.value(), 1, Integer::sum);
                case "ok ack" -> acked.add(op.value());
                case "info ready" -> ready.add(op.value());
                case "info stuck" -> stuck.add(op.value());
                default -> {
                }
            }
        }
        Set<String> indeterminate = new HashSet<>();
        pendingAck.values().forEach(indeterminate::addAll);
        indeterminate.removeAll(acked);
        List<String> examples = new ArrayList<>();
        int lost = 0;
        for (String id : enqueued) {
            if (!acked.contains(id) && !indeterminate.contains(id) && !ready.contains(id) && !stuck.contains(id)) {
                lost++;
                LockChecker.example(examples, "lost: " + id);
            }
        }
        int duplicates = 0;
        int phantoms = 0;
        for (Map.Entry<String, Integer> e : deliveries.entrySet()) {
            duplicates += e.getValue() - 1;
            if (!enqueued.contains(e.getKey()) && !maybe.contains(e.getKey())) {
                phantoms++;
                LockChecker.example(examples, "phantom: " + e.getKey());
            }
        }
        stuck.forEach(id -> LockChecker.example(examples, "stuck: " + id));
        return new Result(enqueued.size(), acked.size(), indeterminate.size(), lost, stuck.size(), duplicates, phantoms, List.copyOf(examples));
    }
}
