package io.coordis.testkit.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges signal accounting. Senders record {@code invoke notify} and {@code ok notify} (value = sequence
 * id); each receiver (one process, whatever thread it records from) records {@code ok subscribed} once confirmed, {@code ok receive} (value =
 * the id) per signal heard, {@code info gap} whenever the library reports it may have missed signals, and
 * {@code ok unsubscribed} at the end.
 *
 * <p>A signal sent entirely within a receiver's subscription (invoked after {@code subscribed}, returned
 * before {@code unsubscribed}) must be heard by it, or covered by a gap the receiver reported between the
 * send and the first signal it heard that was sent after this one returned. Otherwise it is <b>silently
 * missed</b> — the violation. Also counted: signals heard twice, and heard ids nobody sent.
 *
 * <p>Runs in O(n log n) per receiver, so soak runs with hundreds of thousands of signals are judged in seconds.
 */
public final class SignalChecker {
    private SignalChecker() {
    }

    /** The verdict; {@code examples} holds a few offending signals, readable. */
    public record Result(int sent, int receivers, int heard, int missedWithGap, int silentlyMissed,
                         int duplicates, int phantoms, List<String> examples) {
        /**
         * Whether no signal was silently missed, heard twice or invented.
         *
         * @return {@code true} when the history is valid
         */
        public boolean valid() {
            return silentlyMissed == 0 && duplicates == 0 && phantoms == 0;
        }
    }

    private record Send(String id, long invoked, long ok) {
    }

    /**
     * Checks the signals of a history.
     *
     * @param ops the history, oldest first
     * @return the verdict
     */
    public static Result check(List<Op> ops) {
        Map<String, Long> invoked = new HashMap<>();
        Map<String, Send> sends = new HashMap<>();
        Map<String, Long> subscribed = new HashMap<>();
        Map<String, Long> unsubscribed = new HashMap<>();
        Map<String, List<Op>> receives = new HashMap<>();
        Map<String, List<Long>> gaps = new HashMap<>();
        long end = ops.isEmpty() ? 0 : ops.get(ops.size() - 1).micros();
        for (Op op : ops) {
            switch (op.type() + " " + op.f()) {
                case "invoke notify" -> invoked.put(op.value(), op.micros());
                case "ok notify" -> sends.put(op.value(), new Send(op.value(), invoked.getOrDefault(op.value(), op.micros()), op.micros()));
                case "ok subscribed" -> subscribed.put(op.process(), op.micros());
                case "ok unsubscribed" -> unsubscribed.put(op.process(), op.micros());
                case "ok receive" -> receives.computeIfAbsent(op.process(), a -> new ArrayList<>()).add(op);
                case "info gap" -> gaps.computeIfAbsent(op.process(), a -> new ArrayList<>()).add(op.micros());
                default -> {
                }
            }
        }
        List<String> examples = new ArrayList<>();
        int heard = 0;
        int withGap = 0;
        int silent = 0;
        int duplicates = 0;
        int phantoms = 0;
        for (Map.Entry<String, Long> r : subscribed.entrySet()) {
            String actor = r.getKey();
            long from = r.getValue();
            long to = unsubscribed.getOrDefault(actor, end);
            List<Op> got = receives.getOrDefault(actor, List.of());
            Set<String> ids = new HashSet<>();
            for (Op op : got) {
                if (!ids.add(op.value())) {
                    duplicates++;
                    LockChecker.example(examples, actor + " heard " + op.value() + " twice");
                }
                if (!sends.containsKey(op.value()) && !invoked.containsKey(op.value())) {
                    phantoms++;
                    LockChecker.example(examples, actor + " heard " + op.value() + ", which nobody sent");
                }
            }
            long[] actorGaps = gaps.getOrDefault(actor, List.of()).stream().mapToLong(Long::longValue).sorted().toArray();
            HeardAfter heardAfter = new HeardAfter(got, sends);
            for (Send s : sends.values()) {
                if (s.invoked < from || s.ok > to) {
                    continue;
                }
                if (ids.contains(s.id)) {
                    heard++;
                    continue;
                }
                long bound = Math.min(to, heardAfter.firstHeardOfSendInvokedAfter(s.ok));
                if (anyWithin(actorGaps, s.invoked, bound)) {
                    withGap++;
                } else {
                    silent++;
                    LockChecker.example(examples, actor + " silently missed " + s.id);
                }
            }
        }
        return new Result(sends.size(), subscribed.size(), heard, withGap, silent, duplicates, phantoms, List.copyOf(examples));
    }

    /** Whether a value of {@code sorted} lies in {@code [lo, hi]}. */
    private static boolean anyWithin(long[] sorted, long lo, long hi) {
        int i = Arrays.binarySearch(sorted, lo);
        int first = i >= 0 ? i : -i - 1;
        return first < sorted.length && sorted[first] <= hi;
    }

    /**
     * One receiver's signals heard, ordered by when their send was invoked, with the earliest hearing time
     * among all those invoked after a given instant (suffix minima).
     */
    private static final class HeardAfter {
        private final long[] invoked;
        private final long[] earliestHeard;

        HeardAfter(List<Op> got, Map<String, Send> sends) {
            List<long[]> pairs = new ArrayList<>();
            for (Op op : got) {
                Send send = sends.get(op.value());
                if (send != null) {
                    pairs.add(new long[] {send.invoked, op.micros()});
                }
            }
            pairs.sort((a, b) -> Long.compare(a[0], b[0]));
            invoked = new long[pairs.size()];
            earliestHeard = new long[pairs.size() + 1];
            earliestHeard[pairs.size()] = Long.MAX_VALUE;
            for (int i = pairs.size() - 1; i >= 0; i--) {
                invoked[i] = pairs.get(i)[0];
                earliestHeard[i] = Math.min(pairs.get(i)[1], earliestHeard[i + 1]);
            }
        }

        /** The earliest time a signal whose send was invoked strictly after {@code micros} was heard. */
        long firstHeardOfSendInvokedAfter(long micros) {
            int lo = 0;
            int hi = invoked.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (invoked[mid] <= micros) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return earliestHeard[lo];
        }
    }
}
