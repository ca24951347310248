package io.coordis.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The doctor's findings and the facts they rest on.
 *
 * @param nodes          per node, what was read
 * @param findings       every finding, node by node, then those about all nodes
 * @param skewMicros     for several nodes: the largest difference between two nodes' clocks
 * @param skewUncertaintyMicros how far off that figure may be (the round trips it was measured with)
 */
public record DoctorReport(List<NodeFacts> nodes, List<Finding> findings, Optional<Long> skewMicros,
                           Optional<Long> skewUncertaintyMicros) {
    /**
     * Copies the lists, so the report cannot change.
     *
     * @param nodes                 per node, what was read
     * @param findings              every finding, node by node, then those about all nodes
     * @param skewMicros            for several nodes: the largest difference between two nodes' clocks
     * @param skewUncertaintyMicros how far off that figure may be
     */
    public DoctorReport {
        nodes = List.copyOf(nodes);
        findings = List.copyOf(findings);
    }

    /**
     * This report with {@code more} findings about single nodes (such as {@link Doctor#oldLayout()}'s), placed
     * after the other findings about single nodes and before those about all nodes.
     *
     * @param more findings about single nodes
     * @return a new report
     */
    public DoctorReport with(List<Finding> more) {
        List<Finding> all = new ArrayList<>(findings);
        int at = 0;
        while (at < all.size() && !all.get(at).node().equals("*")) {
            at++;
        }
        all.addAll(at, more);
        return new DoctorReport(nodes, all, skewMicros, skewUncertaintyMicros);
    }

    /**
     * The worst severity found: FAIL over WARN over UNKNOWN over OK.
     *
     * @return the worst severity; OK when there are no findings
     */
    public Finding.Severity worst() {
        Finding.Severity worst = Finding.Severity.OK;
        for (Finding f : findings) {
            worst = rank(f.severity()) > rank(worst) ? f.severity() : worst;
        }
        return worst;
    }

    private static int rank(Finding.Severity s) {
        return switch (s) {
            case OK -> 0;
            case UNKNOWN -> 1;
            case WARN -> 2;
            case FAIL -> 3;
        };
    }
}
