package io.coordis.micrometer;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Redlock's votes per configured node, with one of three masters down. */
class RedlockMetricsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    /** Servers the test kit just started would refuse to vote for a while (the restart guard). */
    private static final LockOptions OPTIONS = LockOptions.defaults().withRestartGuard(false);

    @Test
    void votesAreCountedPerNodeAndTheDownNodeVotesError() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        List<RedisServer> servers = redis.servers();
        try (CoordisMetrics metrics = CoordisMetrics.builder(registry).tagNames(Set.of("m:red")).build();
             Coordis c = Coordis.builder().urls(redis.uris()).keyPrefix(Prefixed.prefix()).telemetry(metrics)
                     .connect()) {
            try (Lease lease = c.lock("m:red", OPTIONS).acquire(Duration.ofSeconds(2)).orElseThrow()) {
                assertThat(lease.votes()).hasSize(3);
            }
            // one vote per node and round; a node answering after the majority decided counts not_awaited
            double[] before = new double[3];
            for (int node = 0; node < 3; node++) {
                assertThat(votes(registry, node, servers.get(node).address(), null)).isEqualTo(1);
                before[node] = votes(registry, node, servers.get(node).address(), "acquired");
            }
            assertThat(before[0] + before[1] + before[2]).isGreaterThanOrEqualTo(2);

            servers.get(2).stop();
            try (Lease lease = c.lock("m:red", OPTIONS).acquire(Duration.ofSeconds(2)).orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
            for (int node = 0; node < 2; node++) {
                assertThat(votes(registry, node, servers.get(node).address(), "acquired") - before[node])
                        .as("node %d granted the second round", node).isEqualTo(1);
            }
            String down = servers.get(2).address();
            assertThat(votes(registry, 2, down, "acquired")).isEqualTo(before[2]);
            assertThat(votes(registry, 2, down, "error") + votes(registry, 2, down, "timeout")
                    + votes(registry, 2, down, "not_awaited") - (1 - before[2])).isEqualTo(1);
            assertThat(registry.find("coordis.redlock.votes").counters())
                    .allSatisfy(v -> assertThat(v.getId().getTag("address")).doesNotContain("@"));
        }
    }

    /** The votes of {@code node} counted so far; every vote for {@code null}. */
    private static double votes(MeterRegistry registry, int node, String address, String vote) {
        var search = registry.find("coordis.redlock.votes")
                .tags("name", "m:red", "node", Integer.toString(node), "address", address);
        return (vote == null ? search : search.tag("vote", vote)).counters().stream().mapToDouble(Counter::count).sum();
    }
}
