package io.coordis.testkit.history;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges election histories: {@code invoke campaign} → {@code ok elected} (value = candidate id, token =
 * term) per thread and election name.
 * <ul>
 *   <li><b>Shared term</b>: two different candidates elected with the same term.</li>
 *   <li><b>Term regression</b>: an election B that began after election A had returned ({@code A.ok <
 *       B.invoke}) with a term not higher than A's.</li>
 * </ul>
 */
public final class LeaderChecker {
    private LeaderChecker() {
    }

    /** The verdict; {@code examples} holds a few offending elections, readable. */
    public record Result(int elections, int sharedTerms, int regressions, List<String> examples) {
        /**
         * Whether no two elections shared a term and no term went back.
         *
         * @return {@code true} when the history is valid
         */
        public boolean valid() {
            return sharedTerms == 0 && regressions == 0;
        }
    }

    private record Election(String actor, String key, String id, long term, long invoked, long ok) {
    }

    /**
     * Checks the elections of a history.
     *
     * @param ops the history, oldest first
     * @return the verdict
     */
    public static Result check(List<Op> ops) {
        Map<String, Long> invoked = new HashMap<>();
        List<Election> elections = new ArrayList<>();
        for (Op op : ops) {
            String id = op.actor() + "|" + op.key();
            if (op.is("invoke", "campaign")) {
                invoked.put(id, op.micros());
            } else if (op.is("ok", "elected")) {
                elections.add(new Election(op.actor(), op.key(), op.value(), op.token(),
                        invoked.getOrDefault(id, op.micros()), op.micros()));
            }
        }
        List<String> examples = new ArrayList<>();
        int shared = 0;
        int regressions = 0;
        Map<String, List<Election>> byKey = new HashMap<>();
        elections.forEach(e -> byKey.computeIfAbsent(e.key, k -> new ArrayList<>()).add(e));
        for (List<Election> es : byKey.values()) {
            Map<Long, Election> byTerm = new HashMap<>();
            for (Election e : es) {
                Election other = byTerm.putIfAbsent(e.term, e);
                if (other != null && !other.id.equals(e.id)) {
                    shared++;
                    LockChecker.example(examples, "term " + e.term + " of '" + e.key + "' won by " + other.id
                            + " and by " + e.id);
                }
            }
            List<Election> byOk = new ArrayList<>(es);
            byOk.sort(Comparator.comparingLong(Election::ok));
            List<Election> byInvoke = new ArrayList<>(es);
            byInvoke.sort(Comparator.comparingLong(Election::invoked));
            int next = 0;
            Election highest = null;
            for (Election b : byInvoke) {
                while (next < byOk.size() && byOk.get(next).ok < b.invoked) {
                    Election a = byOk.get(next++);
                    if (highest == null || a.term > highest.term) {
                        highest = a;
                    }
                }
                if (highest != null && b.term <= highest.term) {
                    regressions++;
                    LockChecker.example(examples, b.id + " elected with term " + b.term + " of '" + b.key
                            + "' after " + highest.id + " had been elected with term " + highest.term);
                }
            }
        }
        return new Result(elections.size(), shared, regressions, List.copyOf(examples));
    }
}
