package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.doctor.DoctorReport;
import io.coordis.doctor.Finding;
import io.coordis.doctor.NodeFacts;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The client's Redis as the doctor sees it ({@link io.coordis.doctor.Doctor}, read-only commands): each node
 * reachable or not, with its version and role; for Redlock the nodes up against the quorum; and every finding
 * that is not OK (eviction that can drop locks, persistence, clock skew, missing permissions) as details.
 * DOWN when the node (for Redlock: a majority of nodes) does not answer, UP again once it does; findings alone
 * never make it DOWN.
 */
final class CoordisHealthIndicator extends AbstractHealthIndicator {
    private final Coordis coordis;

    CoordisHealthIndicator(Coordis coordis) {
        super("Coordis health check failed");
        this.coordis = coordis;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws InterruptedException {
        DoctorReport report = coordis.doctor().examine();
        List<Map<String, Object>> nodes = new ArrayList<>();
        int up = 0;
        for (NodeFacts node : report.nodes()) {
            boolean reachable = answered(node);
            up += reachable ? 1 : 0;
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("address", node.address());
            n.put("reachable", reachable);
            node.version().ifPresent(v -> n.put("version", v));
            node.role().ifPresent(r -> n.put("role", r));
            nodes.add(n);
        }
        Set<String> down = report.nodes().stream().filter(n -> !answered(n)).map(NodeFacts::address)
                .collect(Collectors.toSet());
        List<Map<String, Object>> findings = new ArrayList<>();
        for (Finding f : report.findings()) {
            // an unreachable node's "refused" findings only repeat that it is down
            if (f.severity() != Finding.Severity.OK && !down.contains(f.node())) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("severity", f.severity().name());
                m.put("node", f.node());
                m.put("topic", f.topic());
                m.put("message", f.message());
                if (!f.fix().isEmpty()) {
                    m.put("fix", f.fix());
                }
                findings.add(m);
            }
        }
        int total = report.nodes().size();
        int quorum = total / 2 + 1;
        boolean healthy = total == 1 ? up == 1 : up >= quorum;
        (healthy ? builder.up() : builder.down()).withDetail("address", coordis.address());
        if (total > 1) {
            builder.withDetail("mode", "redlock").withDetail("nodesUp", up).withDetail("quorum", quorum);
        }
        builder.withDetail("nodes", nodes).withDetail("findings", findings);
    }

    /**
     * Whether the node answered any of the doctor's commands. TIME is among the commands every Coordis user
     * may run, so a least-privilege user's node that answers counts as reachable even where INFO is refused.
     */
    private static boolean answered(NodeFacts node) {
        return node.version().isPresent() || node.clockOffsetMicros().isPresent() || node.user().isPresent();
    }
}
