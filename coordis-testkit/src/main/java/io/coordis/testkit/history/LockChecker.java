package io.coordis.testkit.history;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges lock histories: {@code invoke acquire} → {@code ok acquire} (token = fencing number, or -1) →
 * {@code invoke release} per thread and lock name.
 *
 * <ul>
 *   <li><b>Overlap</b>: two holders of one lock inside their validity at once. A holding is valid from its
 *       {@code ok acquire} until the earlier of its {@code invoke release} and {@code invoke acquire + ttl}
 *       (the lease cannot outlive its TTL counted from before the request; a holder that ran past its TTL
 *       without renewing is no longer counted — that is the fencing number's job, judged below).</li>
 *   <li><b>Unfenced overlap</b>: two holdings of one lock at once as the holders acted them out, from
 *       {@code ok acquire} to {@code invoke release} whatever the TTL (a holding never released ends at its
 *       thread's next acquisition, or else at its thread's last recorded step). A correct lock has them too when a holder is paused past its lease:
 *       they are what a resource without fencing would suffer, as {@code FencedResource} counts them, and a
 *       run that pauses a holder must show them (proof the pause bit). Not part of {@link Result#valid()}.</li>
 *   <li><b>Fence violation</b>: an acquisition B that began after acquisition A had returned ({@code A.ok <
 *       B.invoke}), yet got a token not higher than A's. Real-time order forces B's acquisition after A's at
 *       Redis, so a correct lock's tokens must grow.</li>
 * </ul>
 */
public final class LockChecker {
    private LockChecker() {
    }

    /** The verdict; {@code examples} holds a few offending pairs, readable. */
    public record Result(int acquisitions, int overlaps, int unfencedOverlaps, int fenceViolations,
                         List<String> examples) {
        /**
         * Whether no two holders overlapped and the fencing numbers grew in real-time order.
         *
         * @return {@code true} when the history is valid
         */
        public boolean valid() {
            return overlaps == 0 && fenceViolations == 0;
        }
    }

    private record Holding(String actor, String key, long invoked, long start, long end, long token) {
    }

    /** A holding as acted out: {@code ok acquire} to {@code invoke release}, or to the thread's last step. */
    private record Acted(String actor, String key, long start, long end, long token) {
    }

    /**
     * Checks the lock holdings of a history.
     *
     * @param ops the history, oldest first
     * @param ttl the locks' TTL
     * @return the verdict
     */
    public static Result check(List<Op> ops, Duration ttl) {
        long ttlMicros = ttl.toNanos() / 1000;
        Map<String, Long> invoked = new HashMap<>();
        Map<String, Integer> open = new HashMap<>();
        List<Holding> holdings = new ArrayList<>();
        Map<String, Integer> actedOpen = new HashMap<>();
        Map<String, Long> lastStep = new HashMap<>();
        List<Acted> acted = new ArrayList<>();
        for (Op op : ops) {
            String id = op.actor() + "|" + op.key();
            lastStep.put(op.actor(), op.micros());
            if (op.is("invoke", "acquire") || op.is("ok", "acquire")) {
                // a thread is sequential: a holding it never released ended by its next acquisition
                Integer previous = actedOpen.remove(id);
                if (previous != null) {
                    Acted h = acted.get(previous);
                    acted.set(previous, new Acted(h.actor, h.key, h.start, op.micros(), h.token));
                }
            }
            if (op.is("invoke", "acquire")) {
                invoked.put(id, op.micros());
            } else if (op.is("ok", "acquire")) {
                long inv = invoked.getOrDefault(id, op.micros());
                holdings.add(new Holding(op.actor(), op.key(), inv, op.micros(), inv + ttlMicros, op.token()));
                open.put(id, holdings.size() - 1);
                acted.add(new Acted(op.actor(), op.key(), op.micros(), -1, op.token()));
                actedOpen.put(id, acted.size() - 1);
            } else if (op.is("invoke", "release")) {
                Integer a = actedOpen.remove(id);
                if (a != null) {
                    Acted h = acted.get(a);
                    acted.set(a, new Acted(h.actor, h.key, h.start, op.micros(), h.token));
                }
                Integer i = open.remove(id);
                if (i != null) {
                    Holding h = holdings.get(i);
                    holdings.set(i, new Holding(h.actor, h.key, h.invoked, h.start, Math.min(h.end, op.micros()), h.token));
                }
            }
        }
        for (Integer a : actedOpen.values()) {
            Acted h = acted.get(a);
            acted.set(a, new Acted(h.actor, h.key, h.start, lastStep.get(h.actor), h.token));
        }
        List<String> examples = new ArrayList<>();
        int overlaps = 0;
        int violations = 0;
        Map<String, List<Holding>> byKey = new HashMap<>();
        holdings.forEach(h -> byKey.computeIfAbsent(h.key, k -> new ArrayList<>()).add(h));
        for (List<Holding> hs : byKey.values()) {
            hs.sort(Comparator.comparingLong(Holding::start));
            List<Holding> active = new ArrayList<>();
            for (Holding h : hs) {
                active.removeIf(a -> a.end <= h.start);
                for (Holding a : active) {
                    if (h.start < h.end) {
                        overlaps++;
                        example(examples, "overlap on '" + h.key + "': " + describe(a) + " and " + describe(h));
                    }
                }
                if (h.start < h.end) {
                    active.add(h);
                }
            }
            // fence: sweep acquisitions by invoke time against those that had returned before
            List<Holding> byOk = new ArrayList<>(hs);
            byOk.sort(Comparator.comparingLong(Holding::start));
            List<Holding> byInvoke = new ArrayList<>(hs);
            byInvoke.sort(Comparator.comparingLong(Holding::invoked));
            int next = 0;
            Holding highest = null;
            for (Holding b : byInvoke) {
                while (next < byOk.size() && byOk.get(next).start < b.invoked) {
                    Holding a = byOk.get(next++);
                    if (a.token >= 0 && (highest == null || a.token > highest.token)) {
                        highest = a;
                    }
                }
                if (b.token >= 0 && highest != null && b.token <= highest.token) {
                    violations++;
                    example(examples, "fence on '" + b.key + "': " + describe(b) + " began after "
                            + describe(highest) + " returned, with a token not higher");
                }
            }
        }
        int unfenced = 0;
        Map<String, List<Acted>> actedByKey = new HashMap<>();
        acted.forEach(h -> actedByKey.computeIfAbsent(h.key, k -> new ArrayList<>()).add(h));
        for (List<Acted> hs : actedByKey.values()) {
            hs.sort(Comparator.comparingLong(Acted::start));
            List<Acted> inside = new ArrayList<>();
            for (Acted h : hs) {
                inside.removeIf(a -> a.end <= h.start);
                unfenced += inside.size();
                if (h.start < h.end) {
                    inside.add(h);
                }
            }
        }
        return new Result(holdings.size(), overlaps, unfenced, violations, List.copyOf(examples));
    }

    private static String describe(Holding h) {
        return h.actor + " token " + h.token + " [" + h.start + ".." + h.end + "]";
    }

    static void example(List<String> examples, String text) {
        if (examples.size() < 5) {
            examples.add(text);
        }
    }
}
