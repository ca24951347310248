package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@link CoordisListener} methods consuming reliable queues in a real application context. */
class CoordisListenerIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone().noFlush();

    static AnnotationConfigApplicationContext context;
    static Coordis client;

    static final Set<String> acked = ConcurrentHashMap.newKeySet();
    static final List<Integer> failedAttempts = new CopyOnWriteArrayList<>();
    static final List<Long> backoffCalls = new CopyOnWriteArrayList<>();
    static final CountDownLatch slowStarted = new CountDownLatch(1);
    static volatile boolean slowFinished;

    public static class Consumers {
        @CoordisListener(queue = "acks", concurrency = 3)
        public void onAck(String message) {
            acked.add(message);
        }

        @CoordisListener(queue = "fails", maxAttempts = 3, backoff = "0s")
        public void onFail(Delivery delivery) {
            failedAttempts.add(delivery.attempts());
            throw new IllegalStateException("cannot process " + delivery.text());
        }

        @CoordisListener(queue = "backoff", maxAttempts = 2, backoff = "400ms")
        public void onBackoff(byte[] message) {
            backoffCalls.add(System.nanoTime());
            throw new IllegalStateException("not yet");
        }
    }

    public static class Slow {
        @CoordisListener(queue = "slow")
        public void onSlow(String message) throws InterruptedException {
            slowStarted.countDown();
            Thread.sleep(700);
            slowFinished = true;
        }
    }

    @BeforeAll
    static void start() {
        context = TestContexts.start("listeners", redis.uri(), Consumers.class);
        client = context.getBean(Coordis.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void aReturnAcknowledgesEveryMessage() throws Exception {
        ReliableQueue queue = client.reliableQueue("acks");
        List<String> sent = IntStream.range(0, 50).mapToObj(i -> "m-" + i).toList();
        queue.pushAll(sent.stream().map(String::getBytes).toList());
        await().atMost(Duration.ofSeconds(10)).until(() -> acked.containsAll(sent));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            QueueStats stats = queue.stats();
            assertThat(stats.depth()).isZero();
            assertThat(stats.inFlight()).isZero();
            assertThat(stats.deadLetters()).isZero();
        });
    }

    @Test
    void anExceptionGivesTheMessageBackUntilItIsDeadLettered() throws Exception {
        ReliableQueue queue = client.reliableQueue("fails");
        queue.push("poison");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(queue.stats().deadLetters()).isEqualTo(1));
        assertThat(failedAttempts).containsExactly(1, 2, 3);
        assertThat(queue.stats().depth()).isZero();
    }

    @Test
    void aFailedMessageComesBackAfterTheBackoff() throws Exception {
        ReliableQueue queue = client.reliableQueue("backoff");
        queue.push("later");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(queue.stats().deadLetters()).isEqualTo(1));
        assertThat(backoffCalls).hasSize(2);
        assertThat(Duration.ofNanos(backoffCalls.get(1) - backoffCalls.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(400));
    }

    @Test
    void closingTheContextFinishesTheMessageInHandAndTakesNoMore() throws Exception {
        AnnotationConfigApplicationContext own = TestContexts.start("slow", redis.uri(), Slow.class);
        ReliableQueue queue = client.reliableQueue("slow");
        queue.push("first");
        assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
        queue.push("second");
        long start = System.nanoTime();
        own.close();
        assertThat(slowFinished).as("the message in hand finished").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        QueueStats stats = queue.stats();
        assertThat(stats.inFlight()).as("it was acknowledged, not put back").isZero();
        assertThat(stats.depth()).as("the second message waits for the next consumer").isEqualTo(1);
        assertThat(stats.consumers().stream().map(QueueStats.ConsumerStats::id).collect(Collectors.toList()))
                .as("the consumer left").isEmpty();
    }
}
