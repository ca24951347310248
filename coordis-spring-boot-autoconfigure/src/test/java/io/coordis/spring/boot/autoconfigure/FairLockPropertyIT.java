package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis.lock.fair}: the LockOptions bean is fair on one Redis, and with Redlock's masters, which make no fair
 * locks, start-up stops with a short report naming the property.
 */
class FairLockPropertyIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CoordisAutoConfiguration.class))
            .withPropertyValues("coordis.key-prefix=" + Prefixed.prefix());

    @Test
    void onOneRedisTheLockOptionsAreFairAndTheirLocksToo(RedisGroup group) {
        runner.withPropertyValues("coordis.urls=" + group.servers().get(0).uri(), "coordis.lock.fair=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockOptions options = context.getBean(LockOptions.class);
                    assertThat(options.fair()).isTrue();
                    try (Lease lease = context.getBean(Coordis.class).lock("fair:boot", options)
                            .acquire(Duration.ofSeconds(5)).orElseThrow()) {
                        assertThat(lease.fencingToken()).isPositive();
                    }
                });
    }

    @Test
    void offByDefault(RedisGroup group) {
        runner.withPropertyValues("coordis.urls=" + group.servers().get(0).uri())
                .run(context -> assertThat(context.getBean(LockOptions.class).fair()).isFalse());
    }

    @Test
    void redlockRefusesTheFairPropertyAtStartUp(RedisGroup group) {
        String urls = String.join(",", group.servers().stream().map(RedisServer::uri).toList());
        runner.withPropertyValues("coordis.urls=" + urls, "coordis.lock.fair=true").run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            FailureAnalysis analysis = Optional.ofNullable(new ConfigurationProblemAnalyzer().analyze(failure))
                    .orElseThrow(() -> new AssertionError("no ConfigurationProblem in " + failure, failure));
            assertThat(analysis.getDescription()).startsWith("Coordis: coordis.lock.fair=true, but this client cannot "
                    + "make fair locks: a Redlock lock is not fair");
            assertThat(analysis.getAction()).isEqualTo("Set coordis.lock.fair=false (the default), or point "
                    + "coordis.urls at one Redis (or a Sentinel-managed master) for fair locks.");
        });
        runner.withPropertyValues("coordis.urls=" + urls).run(context -> assertThat(context).hasNotFailed());
    }
}
