package io.coordis.micrometer;

import io.coordis.Coordis;
import io.coordis.latch.CountDownLatch;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A count-down latch's meters, from a real client against a real Redis. */
class LatchMetricsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MeterRegistry registry = new SimpleMeterRegistry();

    private double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private long timed(String name, String... tags) {
        var timer = registry.find(name).tags(tags).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void countDownsByWhetherTheyOpenedAndWaitsByResult() throws Exception {
        try (CoordisMetrics metrics = CoordisMetrics.builder(registry).tagNames(Set.of("m:latch")).build();
             Coordis c = Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix()).telemetry(metrics).connect()) {
            CountDownLatch latch = c.countDownLatch("m:latch", 2, Duration.ofMinutes(1));
            assertThat(latch.await(Duration.ofMillis(100))).isFalse();
            CompletableFuture<Boolean> waiting = latch.awaitAsync(Duration.ofSeconds(20));
            assertThat(latch.countDown()).isEqualTo(1);
            assertThat(latch.countDown()).isZero();
            assertThat(latch.countDown()).isZero();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();

            assertThat(count("coordis.latch.count.downs", "name", "m:latch", "opened", "false")).isEqualTo(2);
            assertThat(count("coordis.latch.count.downs", "name", "m:latch", "opened", "true")).isEqualTo(1);
            assertThat(timed("coordis.latch.await", "name", "m:latch", "result", "timeout")).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> timed("coordis.latch.await", "name", "m:latch", "result", "open") == 1);
        }
    }
}
