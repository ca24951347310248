package io.coordis.example;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The example application starts against a real Redis and runs its three jobs. */
@ExtendWith(OutputCaptureExtension.class)
class ExampleApplicationIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void runsTheLockedJobTheLeaderOnlyJobAndTheListener(CapturedOutput output) {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ExampleApplication.class).run(
                "--coordis.urls=" + redis.uri(), "--coordis.key-prefix=" + Prefixed.prefix(),
                "--example.instance=first", "--example.report-every=200ms", "--example.housekeeping-every=200ms",
                "--example.order-every=200ms")) {
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(output.getOut())
                    .contains("first writes the report with fencing number 1")
                    .contains("first leads housekeeping in term 1")
                    .contains("first processed order first-1"));
        }
    }

    @Test
    void theDevProfileRunsOnARedisServerOfItsOwn(CapturedOutput output) {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ExampleApplication.class).run(
                "--spring.profiles.active=dev", "--coordis.key-prefix=" + Prefixed.prefix(),
                "--example.instance=solo", "--example.report-every=200ms", "--example.housekeeping-every=200ms",
                "--example.order-every=200ms")) {
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(output.getOut())
                    .contains("coordis.embedded=true: started redis-server")
                    .contains("solo leads housekeeping in term 1")
                    .contains("solo processed order solo-1"));
        }
        assertThat(output.getOut()).contains("stopping the development redis-server");
    }
}
