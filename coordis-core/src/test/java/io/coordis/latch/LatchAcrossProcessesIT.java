package io.coordis.latch;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** One latch opened for 100 waiters spread over three JVMs: each wakes once, with the latch open. */
class LatchAcrossProcessesIT {
    private static final int JVMS = 3;
    private static final int[] WAITERS = {34, 33, 33};

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void hundredWaitersInThreeJvmsWakeOnceWhenTheCountReachesZero() throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        try (Coordis coordis = TestClients.connect(redis.uri())) {
            CountDownLatch latch = coordis.countDownLatch("latch:processes", JVMS, Duration.ofMinutes(1));
            for (int i = 0; i < JVMS; i++) {
                children.add(ChildJvm.start("latch-" + i, LatchWorker.class, List.of(redis.uri(), latch.name(),
                        Integer.toString(JVMS), Integer.toString(WAITERS[i]), "40000")));
            }
            for (int i = 0; i < JVMS; i++) {
                assertThat(children.get(i).awaitLine("WAITING", Duration.ofSeconds(30)))
                        .isEqualTo("WAITING " + WAITERS[i]);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> (Long) ((List<?>) redis.server()
                    .command("PUBSUB", "NUMSUB", latch.key())).get(1) == JVMS);
            for (int i = JVMS - 1; i > 0; i--) {
                assertThat(latch.countDown()).isEqualTo(i);
            }
            assertThat(children.stream().flatMap(c -> c.lines().stream()).filter(l -> l.startsWith("OPENED")))
                    .as("nobody woke before the count reached zero").isEmpty();
            assertThat(latch.countDown()).isZero();
            for (int i = 0; i < JVMS; i++) {
                ChildJvm c = children.get(i);
                assertThat(c.awaitLine("OPENED", Duration.ofSeconds(30))).as(c.describe())
                        .isEqualTo("OPENED " + WAITERS[i] + " TIMEDOUT 0 WOKEN " + WAITERS[i]);
            }
        } finally {
            children.forEach(ChildJvm::close);
        }
    }
}
