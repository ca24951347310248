package io.coordis.micrometer;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's example, run: the lines between the markers are the README's, verbatim. */
class MetricsExampleIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void theReadmeExample() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        ObservationRegistry observationRegistry = ObservationRegistry.create();
        String url = redis.uri();
        String prefix = Prefixed.prefix();
        // README: begin
        CoordisMetrics metrics = CoordisMetrics.builder(registry)   // any MeterRegistry
                .tagNames(Set.of("nightly-report", "jobs"))         // the names that may become tag values
                .observations(observationRegistry)                  // optional: acquires and campaigns in traces
                .build();
        try (metrics; Coordis coordis = Coordis.builder().url(url).keyPrefix(prefix).telemetry(metrics).connect()) {
            metrics.watch(coordis.reliableQueue("jobs"), Duration.ofSeconds(15)); // queue gauges, polled
            try (Lease lease = coordis.lock("nightly-report").acquire(Duration.ofSeconds(5)).orElseThrow()) {
                // coordis.lock.acquire{name=nightly-report,result=acquired}, coordis.lock.held{name=nightly-report}
            }
            coordis.lock("orders:42").tryAcquire().ifPresent(Lease::close); // tagged name=other
        }
        // README: end
        assertThat(registry.get("coordis.queue.depth").tags("name", "jobs").gauge()).isNotNull();
        assertThat(registry.get("coordis.lock.acquire").tags("name", "nightly-report", "result", "acquired").timer()
                .count()).isEqualTo(1);
        assertThat(registry.get("coordis.lock.acquire").tags("name", "other", "result", "acquired").timer()
                .count()).isEqualTo(1);
    }
}
