package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Subscription;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A subscriber too slow for the publishers: Redis cuts it off at its {@code client-output-buffer-limit} for
 * pub/sub. Coordis does not queue signals in the client (a slow listener holds back reading, so the backlog
 * stays in Redis, which is bounded), so the cut-off shows up as a gap reported to the listener, the
 * subscription comes back on its own, and signals published afterwards arrive again. The listener receives
 * far fewer signals than were published during the flood: the excess was dropped by Redis, not buffered
 * in this JVM.
 */
class SlowSubscriberIT {
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aSlowSubscriberCutOffByRedisSeesAGapAndRecovers() throws Exception {
        try (RedisServer redis = RedisServer.start();
             RespClient publisher = RespClient.connect(redis.host(), redis.port());
             Coordis coordis = TestClients.connect(redis.uri())) {
            redis.command("CONFIG", "SET", "client-output-buffer-limit", "pubsub 256kb 128kb 1");
            AtomicInteger received = new AtomicInteger();
            AtomicInteger gaps = new AtomicInteger();
            AtomicInteger afterGap = new AtomicInteger();
            SignalListener slow = new SignalListener() {
                @Override
                public void onSignal(Signal signal) {
                    received.incrementAndGet();
                    if (signal.data().startsWith("flood")) {
                        sleep(5); // far slower than the publisher
                    } else {
                        afterGap.incrementAndGet();
                    }
                }

                @Override
                public void onGap(String node) {
                    gaps.incrementAndGet();
                }
            };
            String payload = "flood-" + "x".repeat(4000);
            int published = 3000;
            try (Subscription s = coordis.signals().listen(List.of("slow:channel"), slow)) {
                for (int i = 0; i < published; i++) {
                    publisher.command("PUBLISH", Prefixed.key("slow:channel"), payload);
                }
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                        assertThat(gaps.get()).as("gaps reported after Redis cut the subscriber off").isPositive());
                int duringFlood = received.get();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                    publisher.command("PUBLISH", Prefixed.key("slow:channel"), "after");
                    assertThat(afterGap.get()).as("signals delivered once subscribed again").isPositive();
                });
                System.out.printf("slow subscriber: %d published (%d MB), %d delivered before the gap was handled, gaps %d%n",
                        published, published * payload.length() / 1_000_000, duringFlood, gaps.get());
                assertThat(duringFlood).as("delivered during the flood: the rest was dropped by Redis, not buffered here")
                        .isLessThan(published / 2);
                assertThat(s.gaps()).isEqualTo(gaps.get());
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
