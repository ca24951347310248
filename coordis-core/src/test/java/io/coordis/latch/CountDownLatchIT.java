package io.coordis.latch;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.inspect.SignalState;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The count-down latch against a real Redis: opening, late waiters, timeouts, expiry, a restart during a wait. */
class CountDownLatchIT {
    private static final Duration LONG = Duration.ofSeconds(20);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        coordis.close();
    }

    private static long subscribers(String channel) {
        return (Long) ((List<?>) redis.server().command("PUBSUB", "NUMSUB", channel)).get(1);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void countingDownToZeroWakesEveryWaiterOnceAndPublishesOnce() throws Exception {
        CountDownLatch latch = coordis.countDownLatch("latch:batch", 3, Duration.ofMinutes(1));
        AtomicInteger woken = new AtomicInteger();
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            CompletableFuture<Boolean> w = latch.awaitAsync(LONG);
            w.thenRun(woken::incrementAndGet);
            waits.add(w);
        }
        ExecutorService blocking = Executors.newFixedThreadPool(2);
        try (Coordis listener = Coordis.connect(redis.uri())) {
            AtomicInteger openings = new AtomicInteger();
            // a plain subscriber of the latch's channel (its name is the key's) counts the openings published
            listener.signals().listen(List.of(latch.key()), s -> openings.incrementAndGet());
            List<Future<Boolean>> blocked = List.of(blocking.submit(() -> latch.await(LONG)),
                    blocking.submit(() -> latch.await(LONG)));
            await().atMost(LONG).until(() -> subscribers(latch.key()) == 2);
            assertThat(latch.getCount()).isEqualTo(3);

            assertThat(latch.countDown()).isEqualTo(2);
            assertThat(coordis.countDownLatch("latch:batch", 3, Duration.ofMinutes(1)).countDown()).isEqualTo(1);
            assertThat(waits).noneMatch(CompletableFuture::isDone);
            assertThat(latch.countDown()).isZero();

            for (CompletableFuture<Boolean> w : waits) {
                assertThat(w.get(10, TimeUnit.SECONDS)).isTrue();
            }
            for (Future<Boolean> b : blocked) {
                assertThat(b.get(10, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(woken.get()).isEqualTo(10);
            assertThat(latch.countDown()).as("at zero a count down does nothing").isZero();
            assertThat(latch.getCount()).isZero();
            await().atMost(LONG).until(() -> openings.get() == 1);
            assertThat(latch.countDown()).isZero();
            assertThat(listener.signals().signal(Prefixed.key("latch:probe"), "x")).isZero(); // one more round trip
            assertThat(openings.get()).as("the opening is published once").isEqualTo(1);
            await().atMost(LONG).until(() -> subscribers(latch.key()) == 1); // the waiters unsubscribed
        } finally {
            blocking.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aWaiterAfterTheOpeningReturnsAtOnceAndAnotherCountDoesNotResetIt() throws Exception {
        CountDownLatch latch = coordis.countDownLatch("latch:late", 1, Duration.ofMinutes(1));
        assertThat(latch.countDown()).isZero();

        long start = System.nanoTime();
        assertThat(latch.await(LONG)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(latch.await(Duration.ZERO)).isTrue();
        assertThat(latch.awaitAsync(LONG).get(10, TimeUnit.SECONDS)).isTrue();

        CountDownLatch other = coordis.countDownLatch("latch:late", 5, Duration.ofMinutes(1));
        assertThat(other.getCount()).isZero();
        assertThat(other.await(Duration.ZERO)).isTrue();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void awaitTimesOutWithTheCountLeft() throws Exception {
        CountDownLatch latch = coordis.countDownLatch("latch:slow", 2, Duration.ofMinutes(1));
        assertThat(latch.countDown()).isEqualTo(1);

        long start = System.nanoTime();
        assertThat(latch.await(Duration.ofMillis(300))).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        assertThat(latch.awaitAsync(Duration.ofMillis(200)).get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(latch.await(Duration.ZERO)).isFalse();
        assertThat(latch.getCount()).isEqualTo(1);
        await().atMost(LONG).until(() -> subscribers(latch.key()) == 0);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theLatchChannelIsNotListedAsASignal() throws Exception {
        CountDownLatch latch = coordis.countDownLatch("latch:listed", 1, Duration.ofMinutes(1));
        CompletableFuture<Boolean> waiting = latch.awaitAsync(LONG);
        try (Coordis other = TestClients.connect(redis.uri())) {
            other.signals().listen(List.of("latch:plain"), s -> { });
            await().atMost(LONG).until(() -> subscribers(latch.key()) == 1);
            assertThat(coordis.inspector().signals("*")).extracting(SignalState::channel)
                    .contains(coordis.keyPrefix() + "latch:plain").doesNotContain(latch.key());
        } finally {
            waiting.cancel(false);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theKeyExpiresAfterTheOpeningOrTheLastChange() {
        CountDownLatch opened = coordis.countDownLatch("latch:expiring", 1, Duration.ofMillis(700));
        CountDownLatch idle = coordis.countDownLatch("latch:idle", 3, Duration.ofMillis(700));
        assertThat(opened.countDown()).isZero();
        assertThat(idle.countDown()).isEqualTo(2);
        for (String key : List.of(opened.key(), idle.key())) {
            assertThat((Long) redis.server().command("PTTL", key)).isBetween(1L, 700L);
        }
        await().atMost(LONG).until(() -> (Long) redis.server().command("EXISTS", opened.key(), idle.key()) == 0);
        assertThat(idle.getCount()).as("the next use starts a new latch").isEqualTo(3);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theReadmeExampleMergesOnceEveryPartIsDone() throws Exception {
        AtomicInteger parts = new AtomicInteger();
        AtomicInteger merged = new AtomicInteger();
        CompletableFuture<Boolean> later = LatchExample.mergeLater(coordis, merged::incrementAndGet);
        ExecutorService merger = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> waiting = merger.submit(() -> LatchExample.mergeWhenDone(coordis, merged::incrementAndGet));
            for (int i = 0; i < 3; i++) {
                LatchExample.finishPart(coordis, parts::incrementAndGet);
            }
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(later.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(LatchExample.mergeWhenDone(coordis, merged::incrementAndGet)).as("after the opening").isTrue();
            assertThat(parts.get()).isEqualTo(3);
            assertThat(merged.get()).isEqualTo(3);
        } finally {
            merger.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void refusesBadArgumentsWithClearMessages() {
        Duration minute = Duration.ofMinutes(1);
        assertThatThrownBy(() -> coordis.countDownLatch(" ", 1, minute))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latch name must not be blank");
        assertThatThrownBy(() -> coordis.countDownLatch("latch:bad", 0, minute))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latch count must be at least 1");
        assertThatThrownBy(() -> coordis.countDownLatch("latch:bad", 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latch expiry must be at least");
        assertThatThrownBy(() -> coordis.countDownLatch("latch:bad", 1, Duration.ofDays(31)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latch expiry must be at most");
        assertThatThrownBy(() -> coordis.countDownLatch("{orders}:latch", 1, minute))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a key Coordis keeps for");
        assertThatThrownBy(() -> coordis.countDownLatch("latch:bad", 1, minute).await(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout must not be negative");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aKeyOfAnotherProgramFailsAtOnceNamingTheLatch() {
        CountDownLatch latch = coordis.countDownLatch("latch:foreign", 1, Duration.ofMinutes(1));
        redis.server().command("HSET", latch.key(), "a", "b");
        long start = System.nanoTime();
        assertThatThrownBy(() -> latch.await(LONG)).isInstanceOf(WrongTypeException.class)
                .hasMessageContaining("latch 'latch:foreign'");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a permanent failure is not waited out")
                .isLessThan(Duration.ofSeconds(10));
        redis.server().command("SET", latch.key(), "many");
        assertThatThrownBy(latch::countDown).isInstanceOf(WrongTypeException.class)
                .hasMessageContaining("holds a string, not what Coordis expects");
        redis.server().command("DEL", latch.key());
    }

    /** A wait that starts while Redis is down subscribes once it is back, within its timeout. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaitStartedWhileRedisIsDownWaitsForItsReturn() throws Exception {
        try (RedisServer server = RedisServer.builder().appendOnly(true).start();
             Coordis waiter = TestClients.connect(server.uri());
             Coordis counter = TestClients.connect(server.uri())) {
            CountDownLatch latch = waiter.countDownLatch("latch:down", 1, Duration.ofMinutes(1));
            server.kill();
            CompletableFuture<Boolean> waiting = latch.awaitAsync(LONG);
            server.restart(Duration.ofMillis(1500));
            await().atMost(LONG).ignoreExceptions().until(() -> (Long) ((List<?>) server.command("PUBSUB", "NUMSUB",
                    latch.key())).get(1) == 1);
            assertThat(waiting).isNotDone();
            await().atMost(LONG).ignoreExceptions().until(() ->
                    counter.countDownLatch("latch:down", 1, Duration.ofMinutes(1)).countDown() == 0);
            assertThat(waiting.get(LONG.toSeconds() + 10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** A wait subscribed before a restart hears the opening after it: the restart is ridden out within its timeout. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaitRidesOutARestart() throws Exception {
        try (RedisServer server = RedisServer.builder().appendOnly(true).start();
             Coordis waiter = TestClients.connect(server.uri());
             Coordis counter = TestClients.connect(server.uri())) {
            CountDownLatch latch = waiter.countDownLatch("latch:restart", 1, Duration.ofMinutes(1));
            assertThat(latch.getCount()).isEqualTo(1);
            CompletableFuture<Boolean> waiting = latch.awaitAsync(LONG);
            await().atMost(LONG).until(() -> (Long) ((List<?>) server.command("PUBSUB", "NUMSUB", latch.key()))
                    .get(1) == 1);
            server.restart(Duration.ofMillis(1500));
            // the counter's own connection may need a moment to come back
            await().atMost(LONG).ignoreExceptions().until(() ->
                    counter.countDownLatch("latch:restart", 1, Duration.ofMinutes(1)).countDown() == 0);
            assertThat(waiting.get(LONG.toSeconds() + 10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
