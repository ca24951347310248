package io.coordis.bench;

import java.util.List;

/**
 * One benchmark scenario: what runs ({@link #factory}, once per implementation in a fresh child JVM),
 * on how many servers, which figure leads its table, and the targets it is judged by. Coordis is always
 * the first implementation; the others are its anchors.
 *
 * @param id              short name, used by {@code --only} and in the results file
 * @param title           one line for the report
 * @param series          scenarios sharing a series are also shown side by side (cost growth), else {@code null}
 * @param point           this scenario's place in its series, e.g. {@code "5 masters"}
 * @param servers         how many independent masters it uses (the first {@code servers} started)
 * @param redlock         whether Coordis needs the servers up longer than the lock TTL first (restart guard)
 * @param implementations implementation names, {@code "coordis"} first
 * @param headline        the figure the ratios are formed from
 * @param higherIsBetter  whether a larger headline figure is better (throughput) or worse (latency)
 * @param targets         the targets for this scenario
 * @param factory         makes one implementation's workload inside the child JVM
 */
record Scenario(String id, String title, String series, String point, int servers, boolean redlock,
                List<String> implementations, String headline, boolean higherIsBetter, List<Target> targets,
                Workload.Factory factory) {

    /** The implementation every ratio is formed for. */
    static final String COORDIS = "coordis";

    Scenario {
        if (implementations.isEmpty() || !implementations.get(0).equals(COORDIS)) {
            throw new IllegalArgumentException("scenario " + id + " must list \"coordis\" first, got " + implementations);
        }
        implementations = List.copyOf(implementations);
        targets = List.copyOf(targets);
    }

    /** The implementations other than Coordis. */
    List<String> anchors() {
        return implementations.subList(1, implementations.size());
    }
}
