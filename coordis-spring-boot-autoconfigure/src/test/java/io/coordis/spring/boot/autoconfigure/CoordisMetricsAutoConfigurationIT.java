package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.micrometer.CoordisMetrics;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The meters of the auto-configured client, in real application contexts against a real Redis. */
class CoordisMetricsAutoConfigurationIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** The client with its metrics, and a plain registry as the application's. */
    private ApplicationContextRunner runner(RedisServer server) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordisAutoConfiguration.class,
                        CoordisMetricsAutoConfiguration.class))
                .withPropertyValues("coordis.urls=" + server.uri(), "coordis.key-prefix=" + Prefixed.prefix());
    }

    private ApplicationContextRunner withRegistry(RedisServer server) {
        return runner(server).withBean(MeterRegistry.class, SimpleMeterRegistry::new);
    }

    private static void lock(AssertableApplicationContext context, String name) throws InterruptedException {
        try (Lease lease = context.getBean(Coordis.class).lock(name).acquire(Duration.ofSeconds(2)).orElseThrow()) {
            assertThat(lease.fencingToken()).isPositive();
        }
    }

    private static long acquired(MeterRegistry registry, String name) {
        Timer timer = registry.find("coordis.lock.acquire").tags("name", name, "result", "acquired").timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void bootsOwnRegistryAndObservationsRecordTheClientsLocks(RedisServer server) {
        // Boot's metrics and observation auto-configurations, ordered by the names ours declares
        runner(server).withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                        ObservationAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(CoordisMetrics.class);
                    assertThat(context.getBean(CoordisMetrics.class).toString()).contains("observed");
                    lock(context, "metrics:job");
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(acquired(registry, "other")).isEqualTo(1);
                    assertThat(registry.find("coordis.lock.acquire").tag("name", "metrics:job").meters()).isEmpty();
                    assertThat(registry.find("coordis.lock.held").tag("name", "other").longTaskTimer()).isNotNull();
                });
    }

    @Test
    void namesOnTheAllowlistBecomeTags(RedisServer server) {
        withRegistry(server).withPropertyValues("coordis.metrics.tag-names=orders,invoices").run(context -> {
            lock(context, "orders");
            lock(context, "orders:42");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(acquired(registry, "orders")).isEqualTo(1);
            assertThat(acquired(registry, "other")).isEqualTo(1);
        });
    }

    @Test
    void listedQueuesHaveTheirGaugesPolledUntilTheContextCloses(RedisServer server) {
        Set<Thread> before = pollers();
        Set<Thread> polling = new HashSet<>();
        withRegistry(server).withPropertyValues("coordis.metrics.queues=metrics:jobs",
                "coordis.metrics.poll-interval=200ms").run(context -> {
            context.getBean(Coordis.class).reliableQueue("metrics:jobs").push("one");
            context.getBean(Coordis.class).reliableQueue("metrics:jobs").push("two");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    registry.get("coordis.queue.depth").tag("name", "metrics:jobs").gauge().value()).isEqualTo(2.0));
            assertThat(registry.get("coordis.queue.dead").tag("name", "metrics:jobs").gauge()).isNotNull();
            polling.addAll(pollers());
            polling.removeAll(before);
        });
        assertThat(polling).as("the context's polling thread").isNotEmpty();
        await().atMost(Duration.ofSeconds(2)).until(() -> polling.stream().noneMatch(Thread::isAlive));
    }

    private static Set<Thread> pollers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("coordis-metrics"))
                .collect(Collectors.toSet());
    }

    @Test
    void withoutAMeterRegistryTheClientWorksWithoutMetrics(RedisServer server) {
        runner(server).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CoordisMetrics.class);
            lock(context, "metrics:plain");
        });
    }

    @Test
    void withoutCoordisMicrometerOnTheClassPathTheClientWorksWithoutMetrics(RedisServer server) {
        withRegistry(server).withClassLoader(new FilteredClassLoader(CoordisMetrics.class)).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CoordisMetrics.class);
            lock(context, "metrics:plain");
            assertThat(context.getBean(MeterRegistry.class).find("coordis.lock.acquire").meters()).isEmpty();
        });
    }

    @Test
    void switchedOffByProperty(RedisServer server) {
        withRegistry(server).withPropertyValues("coordis.metrics.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(CoordisMetrics.class);
            lock(context, "metrics:off");
            assertThat(context.getBean(MeterRegistry.class).find("coordis.lock.acquire").meters()).isEmpty();
        });
    }

    @Test
    void theApplicationsOwnMetricsAreTheClientsTelemetry(RedisServer server) {
        MeterRegistry own = new SimpleMeterRegistry();
        withRegistry(server)
                .withBean(CoordisMetrics.class, () -> CoordisMetrics.builder(own).tagNames(n -> "mine").build())
                .run(context -> {
                    assertThat(context).hasSingleBean(CoordisMetrics.class);
                    lock(context, "metrics:own");
                    assertThat(acquired(own, "mine")).isEqualTo(1);
                    assertThat(context.getBean(MeterRegistry.class).find("coordis.lock.acquire").meters()).isEmpty();
                });
    }

    @Test
    void aTooShortPollIntervalIsRefusedNamingTheProperty(RedisServer server) {
        withRegistry(server).withPropertyValues("coordis.metrics.queues=jobs", "coordis.metrics.poll-interval=10ms")
                .run(context -> {
                    assertThat(context).hasFailed();
                    var analysis = Optional.ofNullable(new ConfigurationProblemAnalyzer()
                            .analyze(context.getStartupFailure())).orElseThrow();
                    assertThat(analysis.getDescription())
                            .contains("coordis.metrics.poll-interval must be at least 100ms, was PT0.01S");
                    assertThat(analysis.getAction()).contains("coordis.metrics.poll-interval=10s");
                });
    }
}
