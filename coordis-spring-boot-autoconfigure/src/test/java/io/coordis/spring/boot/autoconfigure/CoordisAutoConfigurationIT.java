package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Lease;
import io.coordis.queue.QueueOptions;
import io.coordis.redis.runner.RedisProcess;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every condition and property of the auto-configuration, each in a real application context against a real Redis. */
@ExtendWith(OutputCaptureExtension.class)
class CoordisAutoConfigurationIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final AutoConfigurations COORDIS = AutoConfigurations.of(CoordisAutoConfiguration.class,
            CoordisActuatorAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(COORDIS)
            .withPropertyValues("coordis.key-prefix=" + Prefixed.prefix());

    private ApplicationContextRunner at(RedisServer server) {
        return runner.withPropertyValues("coordis.urls=" + server.uri());
    }

    @Test
    void connectsToCoordisUrlsAndClosesTheClientWithTheContext(RedisServer server) {
        AtomicReference<Coordis> client = new AtomicReference<>();
        at(server).run(context -> {
            assertThat(context).hasSingleBean(Coordis.class);
            Coordis coordis = context.getBean(Coordis.class);
            client.set(coordis);
            assertThat(coordis.address()).isEqualTo(server.address());
            try (Lease lease = coordis.lock("boot:job").acquire(Duration.ofSeconds(2)).orElseThrow()) {
                assertThat(lease.fencingToken()).isPositive();
            }
        });
        assertThatThrownBy(() -> client.get().lock("boot:after").acquire(Duration.ofMillis(100)))
                .isInstanceOf(CoordisException.class);
    }

    @Test
    void appliesTheClientAndOptionProperties(RedisServer server) {
        at(server).withPropertyValues("coordis.key-prefix=" + Prefixed.prefix() + "billing:",
                        "coordis.command-timeout=500ms", "coordis.lock.ttl=5s", "coordis.lock.max-hold=1m",
                        "coordis.queue.max-attempts=3", "coordis.queue.heartbeat-ttl=4s",
                        "coordis.queue.sweep-interval=1s", "coordis.queue.slots=2", "coordis.queue.max-message-bytes=1000")
                .run(context -> {
                    Coordis coordis = context.getBean(Coordis.class);
                    assertThat(coordis.keyPrefix()).isEqualTo(Prefixed.prefix() + "billing:");
                    assertThat(coordis.lock("x").key()).isEqualTo(Prefixed.prefix() + "billing:x");
                    LockOptions lock = context.getBean(LockOptions.class);
                    assertThat(lock.ttl()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(lock.maxHold()).contains(Duration.ofMinutes(1));
                    QueueOptions queue = context.getBean(QueueOptions.class);
                    assertThat(queue.maxAttempts()).isEqualTo(3);
                    assertThat(queue.heartbeatTtl()).isEqualTo(Duration.ofSeconds(4));
                    assertThat(queue.sweepInterval()).isEqualTo(Duration.ofSeconds(1));
                    assertThat(queue.slots()).isEqualTo(2);
                    assertThat(queue.maxMessageBytes()).isEqualTo(1000);
                });
    }

    @Test
    void defaultsMatchTheLibrarysDefaults(RedisServer server) {
        at(server).run(context -> {
            assertThat(context.getBean(LockOptions.class).ttl()).isEqualTo(LockOptions.defaults().ttl());
            assertThat(context.getBean(LockOptions.class).maxHold()).isEmpty();
            QueueOptions queue = context.getBean(QueueOptions.class);
            QueueOptions defaults = QueueOptions.defaults();
            assertThat(queue.maxAttempts()).isEqualTo(defaults.maxAttempts());
            assertThat(queue.heartbeatTtl()).isEqualTo(defaults.heartbeatTtl());
            assertThat(queue.sweepInterval()).isEqualTo(defaults.sweepInterval());
            assertThat(queue.slots()).isEqualTo(defaults.slots());
            assertThat(queue.maxMessageBytes()).isEqualTo(defaults.maxMessageBytes());
        });
    }

    @Test
    void withoutCoordisUrlsUsesSpringDataRedisProperties(RedisServer server) {
        runner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Coordis.class).address()).isEqualTo(server.address());
                });
    }

    @Test
    void withoutCoordisUrlsUsesAConnectionDetailsBean(RedisServer server) {
        runner.withBean(DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {
                    @Override
                    public Standalone getStandalone() {
                        return Standalone.of(server.host(), server.port());
                    }
                })
                .run(context -> assertThat(context.getBean(Coordis.class).address()).isEqualTo(server.address()));
    }

    @Test
    void coordisUrlsWinOverSpringDataRedis(RedisServer server) {
        at(server).withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=1")
                .run(context -> assertThat(context.getBean(Coordis.class).address()).isEqualTo(server.address()));
    }

    @Test
    void backsOffFromTheApplicationsOwnBeans(RedisServer server) {
        LockOptions ours = LockOptions.defaults().withTtl(Duration.ofSeconds(7));
        QueueOptions ourQueue = QueueOptions.defaults().withSlots(3);
        try (Coordis own = Coordis.builder().url(server.uri()).keyPrefix(Prefixed.prefix()).connect()) {
            runner.withBean(Coordis.class, () -> own)
                    .withBean(LockOptions.class, () -> ours)
                    .withBean(QueueOptions.class, () -> ourQueue)
                    .run(context -> {
                        assertThat(context).hasSingleBean(Coordis.class);
                        assertThat(context.getBean(Coordis.class)).isSameAs(own);
                        assertThat(context.getBean(LockOptions.class)).isSameAs(ours);
                        assertThat(context.getBean(QueueOptions.class)).isSameAs(ourQueue);
                    });
        }
    }

    @Test
    void customizersChangeTheBuilderInOrder(RedisServer server) {
        at(server).withBean("second", CoordisBuilderCustomizer.class,
                        () -> new Ordered(2, b -> b.keyPrefix(Prefixed.prefix() + "second:")))
                .withBean("first", CoordisBuilderCustomizer.class,
                        () -> new Ordered(1, b -> b.keyPrefix(Prefixed.prefix() + "first:")))
                .run(context -> assertThat(context.getBean(Coordis.class).keyPrefix())
                        .isEqualTo(Prefixed.prefix() + "second:"));
    }

    /** A customizer with an order. */
    private record Ordered(int order, CoordisBuilderCustomizer body)
            implements CoordisBuilderCustomizer, org.springframework.core.Ordered {
        @Override
        public void customize(Coordis.Builder builder) {
            body.customize(builder);
        }

        @Override
        public int getOrder() {
            return order;
        }
    }

    @Test
    void healthIndicatorWithActuatorAndNotWhenDisabledOrAbsent(RedisServer server) {
        at(server).run(context -> assertThat(context).hasBean("coordisHealthIndicator"));
        at(server).withPropertyValues("management.health.coordis.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("coordisHealthIndicator"));
        at(server).withClassLoader(new FilteredClassLoader(HealthIndicator.class, Endpoint.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(Coordis.class);
                    assertThat(context).doesNotHaveBean("coordisHealthIndicator");
                    assertThat(context).doesNotHaveBean(CoordisEndpoint.class);
                });
    }

    @Test
    void endpointOnlyWhenExposed(RedisServer server) {
        WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(COORDIS)
                .withPropertyValues("coordis.key-prefix=" + Prefixed.prefix(), "coordis.urls=" + server.uri());
        web.run(context -> assertThat(context).doesNotHaveBean(CoordisEndpoint.class));
        web.withPropertyValues("management.endpoints.web.exposure.include=coordis")
                .run(context -> assertThat(context).hasSingleBean(CoordisEndpoint.class));
    }

    @Test
    void noCoordisBeanNoActuatorBeans(RedisServer server) {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(CoordisActuatorAutoConfiguration.class))
                .withPropertyValues("management.endpoints.jmx.exposure.include=*")
                .run(context -> {
                    assertThat(context).doesNotHaveBean("coordisHealthIndicator");
                    assertThat(context).doesNotHaveBean(CoordisEndpoint.class);
                });
    }

    @Test
    void embeddedStartsARedisServerForDevelopmentAndStopsIt(CapturedOutput output) {
        AtomicReference<String> address = new AtomicReference<>();
        runner.withPropertyValues("coordis.embedded=true").run(context -> {
            assertThat(context).hasNotFailed();
            Coordis coordis = context.getBean(Coordis.class);
            address.set(coordis.address());
            try (Lease lease = coordis.lock("boot:dev").acquire(Duration.ofSeconds(2)).orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        });
        assertThat(output).contains("WARN").contains("coordis.embedded=true: started redis-server")
                .contains("development only");
        String[] hostPort = address.get().split(":");
        assertThatThrownBy(() -> new Socket(hostPort[0], Integer.parseInt(hostPort[1])).close())
                .isInstanceOf(IOException.class);
    }

    @Test
    void embeddedIsIgnoredWhenUrlsAreGiven(RedisServer server) {
        at(server).withPropertyValues("coordis.embedded=true")
                .run(context -> assertThat(context.getBean(Coordis.class).address()).isEqualTo(server.address()));
    }

    // --- bad configuration: each stops start-up with the property named and what to write instead

    @Test
    void twoUrls(RedisServer server) {
        refused(runner.withPropertyValues("coordis.urls=" + server.uri() + "," + server.uri()),
                "coordis.urls has 2 URLs", "three or more independent masters");
    }

    @Test
    void malformedUrl() {
        refused(runner.withPropertyValues("coordis.urls=http://user:secret@localhost:6379"),
                "coordis.urls is not a Redis URL: 'http://***@localhost:6379'", "Write coordis.urls as redis://");
        refused(runner.withPropertyValues("coordis.urls=localhost:6379"),
                "coordis.urls is not a Redis URL", "redis://[user:password@]host:port");
    }

    @Test
    void malformedReplicaUrl(RedisServer server) {
        refused(at(server).withPropertyValues("coordis.replica-urls=replica:6379"),
                "coordis.replica-urls[0] is not a Redis URL", "Write coordis.replica-urls[0] as redis://");
    }

    @Test
    void tlsFileMissing(RedisServer server) {
        refused(at(server).withPropertyValues("coordis.tls.ca=/nonexistent/ca.pem"),
                "coordis.tls.ca: the file /nonexistent/ca.pem does not exist", "Set coordis.tls.ca to the path of");
        refused(at(server).withPropertyValues("coordis.tls.cert=/nonexistent/client.pem"),
                "coordis.tls.cert and coordis.tls.key go together, but coordis.tls.key is not set",
                "Set coordis.tls.key too");
        refused(at(server).withPropertyValues("coordis.tls.cert=pom.xml", "coordis.tls.key=/nonexistent/client.key"),
                "coordis.tls.key: the file /nonexistent/client.key does not exist", "Set coordis.tls.key to the path of");
    }

    @Test
    void keyPrefixWithBraces(RedisServer server) {
        refused(at(server).withPropertyValues("coordis.key-prefix={billing}:"),
                "coordis.key-prefix: key prefix '{billing}:' contains '{'", "a plain prefix such as billing:");
    }

    @Test
    void optionsOutOfRange(RedisServer server) {
        refused(at(server).withPropertyValues("coordis.lock.ttl=10ms"), "coordis.lock.ttl:", "from 100ms to 30d");
        refused(at(server).withPropertyValues("coordis.queue.slots=0"), "coordis.queue.slots:", "from 1 to 1024");
        refused(at(server).withPropertyValues("coordis.command-timeout=1ms"), "coordis.command-timeout:",
                "at least 10ms");
    }

    @Test
    void redisUnreachable() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        refused(runner.withPropertyValues("coordis.urls=redis://:secret@127.0.0.1:" + port),
                "cannot reach Redis at redis://***@127.0.0.1:" + port + " (from coordis.urls)", "Start Redis there");
    }

    @Test
    void noRedisConfiguredAtAll() {
        refused(runner.withClassLoader(new FilteredClassLoader(DataRedisConnectionDetails.class)),
                "no Redis is configured", "Set coordis.urls=redis://host:6379");
    }

    @Test
    void embeddedWithoutTheRunner() {
        refused(runner.withPropertyValues("coordis.embedded=true").withClassLoader(new FilteredClassLoader(RedisProcess.class)),
                "coordis.embedded=true needs io.coordis:coordis-redis-runner",
                "Add the dependency io.coordis:coordis-redis-runner");
    }

    /** Only the auto-configurations under test, for a real {@link SpringApplication}. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({CoordisAutoConfiguration.class, CoordisActuatorAutoConfiguration.class})
    static class App {
    }

    @Test
    void aRealApplicationPrintsTheShortReportAndNoStackTrace(CapturedOutput output) {
        SpringApplication app = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("coordis.urls=redis://a:6379,redis://b:6379", "spring.main.banner-mode=off").build();
        assertThatThrownBy(app::run).isInstanceOf(Exception.class);
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Coordis: coordis.urls has 2 URLs")
                .contains("Give one URL for a single Redis (coordis.urls=redis://host:6379), or three or more")
                .doesNotContain("\tat io.coordis.")
                .doesNotContain("\tat org.springframework.");
    }

    /** The context fails, and Boot's report (the registered analyzer's) names the problem and the fix, with no password. */
    private static void refused(ApplicationContextRunner runner, String description, String action) {
        runner.run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            var analysis = Optional.ofNullable(new ConfigurationProblemAnalyzer().analyze(failure)).orElseThrow(
                    () -> new AssertionError("no ConfigurationProblem in " + failure, failure));
            assertThat(analysis.getDescription()).startsWith("Coordis: ").contains(description).doesNotContain("secret");
            assertThat(analysis.getAction()).contains(action).doesNotContain("secret");
        });
    }
}
