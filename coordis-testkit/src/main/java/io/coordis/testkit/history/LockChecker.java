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
 *   <li><b>Fence violation</b>: an acquisition B that began after acquisition A had returned ({@code A.ok <
 *       B.invoke}), yet got a token not higher than A's. Real-time order forces B's acquisition after A's at
 *       Redis, so a correct lock's tokens must grow.</li>
 * </ul>
 */
public final class LockChecker {
    private LockChecker() {
    }

    /** The verdict; {@code examples} holds a few offending pairs, readable. */
    public record Result(int acquisitions, int overlaps, int fenceViolations, List<String> examples) {
        public boolean valid() {
            return overlaps == 0 && fenceViolations == 0;
        }
    }

    private record Holding(String actor, String key, long invoked, long start, long end, long token) {
    }

    public static Result check(List<Op> ops, Duration ttl) {
        long ttlMicros = ttl.toNanos() / 1000;
        Map<String, Long> invoked = new HashMap<>();
        Map<String, Integer> open = new HashMap<>();
        List<Holding> holdings = new ArrayList<>();
        for (Op op : ops) {
            String id = op.actor() + "|" + op.key();
            if (op.is("invoke", "acquire")) {
                invoked.put(id, op.micros());
            } else if (op.is("ok", "acquire")) {
                long inv = invoked.getOrDefault(id, op.micros());
                holdings.add(new Holding(op.actor(), op.key(), inv, op.micros(), inv + ttlMicros, op.token()));
                open.put(id, holdings.size() - 1);
            } else if (op.is("invoke", "release")) {
                Integer i = open.remove(id);
                if (i != null) {
                    Holding h = holdings.get(i);
                    holdings.set(i, new Holding(h.actor, h.key, h.invoked, h.start, Math.min(h.end, op.micros()), h.token));
                }
            }
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
        return new Result(holdings.size(), overlaps, violations, List.copyOf(examples));
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
