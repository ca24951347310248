package io.coordis.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every child's result line, by scenario, implementation and round, and the figures formed from them:
 * summaries over rounds, per-round ratios, and target checks. Not thread-safe (the runner is one thread).
 */
final class Results {
    private final int rounds;
    private final Map<String, Map<String, Object>[]> byRun = new HashMap<>();
    private final List<String> failures = new ArrayList<>();

    Results(int rounds) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds must be 1 or more, got " + rounds);
        }
        this.rounds = rounds;
    }

    int rounds() {
        return rounds;
    }

    @SuppressWarnings("unchecked")
    void add(String scenario, String implementation, int round, Map<String, Object> result) {
        byRun.computeIfAbsent(scenario + "/" + implementation, k -> new Map[rounds])[round] = result;
    }

    void failed(String what) {
        failures.add(what);
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    /** The result of one run, or {@code null}. */
    Map<String, Object> get(String scenario, String implementation, int round) {
        Map<String, Object>[] runs = byRun.get(scenario + "/" + implementation);
        return runs == null ? null : runs[round];
    }

    /** One numeric figure per round; NaN where the run is missing or lacks it. */
    double[] values(String scenario, String implementation, String metric) {
        double[] v = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            Map<String, Object> result = get(scenario, implementation, r);
            Object x = result == null ? null : result.get(metric);
            v[r] = x instanceof Number n ? n.doubleValue() : Double.NaN;
        }
        return v;
    }

    Summary summary(String scenario, String implementation, String metric) {
        return Summary.of(values(scenario, implementation, metric));
    }

    /** Coordis's {@code metric} ÷ {@code anchor}'s, round by round, summarised. */
    Summary ratio(String scenario, String anchor, String metric) {
        return Summary.of(Summary.quotients(values(scenario, Scenario.COORDIS, metric), values(scenario, anchor, metric)));
    }

    /** {@code implementation}'s {@code metric} in scenario {@code to} ÷ in scenario {@code from}, per round. */
    private double[] growth(String to, String from, String implementation, String metric) {
        return Summary.quotients(values(to, implementation, metric), values(from, implementation, metric));
    }

    /** The value {@code target} is checked against, for {@code scenario}. */
    Summary check(Scenario scenario, Target target) {
        String coordis = Scenario.COORDIS;
        return switch (target.kind()) {
            case RATIO -> ratio(scenario.id(), target.other(), target.metric());
            case ABSOLUTE -> summary(scenario.id(), coordis, target.metric());
            case GROWTH -> Summary.of(growth(scenario.id(), target.other(), coordis, target.metric()));
            case GROWTH_RATIO -> Summary.of(Summary.quotients(growth(scenario.id(), target.other(), coordis, target.metric()),
                    growth(scenario.id(), target.other(), target.metric2(), target.metric())));
            case SPREAD -> Summary.of(Summary.quotients(values(scenario.id(), coordis, target.metric()),
                    values(scenario.id(), coordis, target.metric2())));
        };
    }
}
