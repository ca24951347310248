package io.coordis.spring.boot.autoconfigure;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** With three Redlock masters the indicator is UP while a majority answers, and says how many do. */
class RedlockHealthIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    @Test
    void upWithAQuorumDownWithout(RedisGroup group) {
        List<RedisServer> servers = group.servers();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordisAutoConfiguration.class, CoordisActuatorAutoConfiguration.class))
                .withPropertyValues("coordis.key-prefix=" + Prefixed.prefix(), "coordis.command-timeout=1s",
                        "coordis.urls=" + String.join(",", servers.stream().map(RedisServer::uri).toList()))
                .run(context -> {
                    HealthIndicator health = context.getBean("coordisHealthIndicator", HealthIndicator.class);
                    Health all = health.health(true);
                    assertThat(all.getStatus()).isEqualTo(Status.UP);
                    assertThat(all.getDetails()).containsEntry("mode", "redlock").containsEntry("nodesUp", 3)
                            .containsEntry("quorum", 2);

                    servers.get(0).stop();
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        Health one = health.health(true);
                        assertThat(one.getStatus()).isEqualTo(Status.UP);
                        assertThat(one.getDetails()).containsEntry("nodesUp", 2);
                        assertThat(node(one, servers.get(0))).containsEntry("reachable", false);
                    });

                    servers.get(1).stop();
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        Health two = health.health(true);
                        assertThat(two.getStatus()).isEqualTo(Status.DOWN);
                        assertThat(two.getDetails()).containsEntry("nodesUp", 1);
                    });

                    servers.get(0).restart(Duration.ZERO);
                    await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                            assertThat(health.health(true).getStatus()).isEqualTo(Status.UP));
                    servers.get(1).restart(Duration.ZERO);
                });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> node(Health health, RedisServer server) {
        return ((List<Map<String, Object>>) health.getDetails().get("nodes")).stream()
                .filter(n -> n.get("address").equals(server.address())).findFirst().orElseThrow();
    }
}
