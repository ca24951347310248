package io.coordis.signal;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The signal races the waiter: sent before, while or after it subscribes. With a latched event no
 * wake-up may be lost; a plain waiter that subscribes after the signal loses it (the control).
 */
class LostWakeupIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final int ITERATIONS = Integer.getInteger("coordis.race.iterations", 10_000);

    @Test
    void latchedEventLosesNoWakeUpWhicheverComesFirst() throws Exception {
        ExecutorService signaller = Executors.newSingleThreadExecutor();
        int timeouts = 0;
        int signalledFirst = 0;
        int signalledToSubscriber = 0;
        try (Coordis waiting = TestClients.connect(redis.uri());
             Coordis signalling = TestClients.connect(redis.uri())) {
            for (int i = 0; i < ITERATIONS; i++) {
                String name = "race:" + i;
                Event mine = waiting.signals().event(name, Duration.ofSeconds(20));
                Event theirs = signalling.signals().event(name, Duration.ofSeconds(20));
                long spinNanos = ThreadLocalRandom.current().nextLong(TimeUnit.MICROSECONDS.toNanos(400));
                Future<Long> sent = signaller.submit(() -> {
                    long until = System.nanoTime() + spinNanos;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    return theirs.signal("go-" + spinNanos);
                });
                try (Waiter w = mine.waiter()) {
                    if (w.await(Duration.ofSeconds(2)).isEmpty()) {
                        timeouts++;
                    }
                }
                if (sent.get(5, TimeUnit.SECONDS) == 0) {
                    signalledFirst++;
                } else {
                    signalledToSubscriber++;
                }
            }
        } finally {
            signaller.shutdownNow();
        }
        System.out.printf("lost wake-up race: %d iterations, signal before subscribe %d, after %d, timeouts %d%n",
                ITERATIONS, signalledFirst, signalledToSubscriber, timeouts);
        assertThat(timeouts).isZero();
        // the race really raced: both orders happened
        assertThat(signalledFirst).isPositive();
        assertThat(signalledToSubscriber).isPositive();
    }

    @Test
    void controlPlainWaiterSubscribedAfterTheSignalMissesIt() throws Exception {
        try (Coordis c = TestClients.connect(redis.uri())) {
            int missed = 0;
            for (int i = 0; i < 20; i++) {
                c.signals().signal("plain-race:" + i, "too-early");
                try (Waiter w = c.signals().waiter("plain-race:" + i)) {
                    if (w.await(Duration.ofMillis(20)).isEmpty()) {
                        missed++;
                    }
                }
            }
            assertThat(missed).isEqualTo(20);
        }
    }
}
