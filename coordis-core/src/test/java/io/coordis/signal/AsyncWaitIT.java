package io.coordis.signal;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Signal waits without a thread: awaitAsync completes on the client's callback executor, times out, cancels cleanly.
 */
class AsyncWaitIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private Signals signals;

    @BeforeEach
    void connect() throws Exception {
        coordis = TestClients.connect(redis.uri());
        signals = coordis.signals();
        signals.waiter("warm-up").close(); // the pub/sub connection is open: no call below waits for it
    }

    @AfterEach
    void close() {
        coordis.close();
    }

    private static long numsub(String channel) {
        return (Long) ((List<?>) redis.server().command("PUBSUB", "NUMSUB", Prefixed.key(channel))).get(1);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void completesWithTheSignalOnTheCallbackExecutorAndUnsubscribes() throws Exception {
        CompletableFuture<Optional<Signal>> waiting = signals.awaitAsync("async:one", Duration.ofSeconds(10));
        CompletableFuture<String> thread = waiting.thenApply(s -> Thread.currentThread().getName());
        await().atMost(Duration.ofSeconds(5)).until(() -> numsub("async:one") == 1);
        assertThat(waiting).isNotDone();

        assertThat(signals.signal("async:one", "done")).isEqualTo(1);
        // waited for through the dependent: a thread blocked in get() may run the future's dependents itself
        assertThat(thread.get(5, TimeUnit.SECONDS)).startsWith("coordis-callback");
        assertThat(waiting.get(5, TimeUnit.SECONDS)).map(Signal::data).contains("done");
        await().atMost(Duration.ofSeconds(5)).until(() -> numsub("async:one") == 0);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void timesOutAsEmptyAndUnsubscribes() throws Exception {
        long start = System.nanoTime();
        Optional<Signal> none = signals.awaitAsync("async:quiet", Duration.ofMillis(200)).get(5, TimeUnit.SECONDS);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(none).isEmpty();
        assertThat(tookMillis).isBetween(190L, 2_000L);
        await().atMost(Duration.ofSeconds(5)).until(() -> numsub("async:quiet") == 0);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void aWaitersAwaitAsyncEndsWithTheWaiterAndLeavesItSubscribedWhenCancelled() throws Exception {
        try (Waiter w = signals.waiter("async:waiter")) {
            CompletableFuture<Optional<Signal>> first = w.awaitAsync(Duration.ofSeconds(10));
            first.cancel(true);
            assertThat(numsub("async:waiter")).as("the waiter is the caller's to close").isEqualTo(1);
            assertThat(w.awaitAsync(Duration.ofMillis(50)).get(5, TimeUnit.SECONDS)).isEmpty();

            CompletableFuture<Optional<Signal>> second = w.awaitAsync(Duration.ofSeconds(10));
            signals.signal("async:waiter", "x");
            assertThat(second.get(5, TimeUnit.SECONDS)).map(Signal::data).contains("x");
            assertThat(w.awaitAsync(Duration.ZERO).get()).map(Signal::data).contains("x"); // wakes once, stays
        }
        try (Waiter closed = signals.waiter("async:closed")) {
            CompletableFuture<Optional<Signal>> pending = closed.awaitAsync(Duration.ofSeconds(10));
            closed.close();
            assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void cancellingRacingTheSignalNeverLeavesASubscription() throws Exception {
        int delivered = 0;
        int cancelled = 0;
        for (int i = 0; i < 200; i++) {
            String channel = "async:race:" + i;
            CompletableFuture<Optional<Signal>> waiting = signals.awaitAsync(channel, Duration.ofSeconds(10));
            if (i % 2 == 0) {
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(5))
                        .until(() -> numsub(channel) >= 1 || waiting.isDone());
            }
            CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() -> signals.signal(channel, "go"));
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(300_000));
            if (waiting.cancel(true)) {
                cancelled++;
            } else {
                assertThat(waiting.get(5, TimeUnit.SECONDS)).map(Signal::data).contains("go");
                delivered++;
            }
            sent.get(5, TimeUnit.SECONDS);
        }
        assertThat(cancelled).isPositive();
        assertThat(delivered + cancelled).isEqualTo(200);
        await().atMost(Duration.ofSeconds(5)).until(() -> ((List<?>) redis.server().command("PUBSUB", "CHANNELS",
                Prefixed.key("async:race:*"))).isEmpty());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoThousandWaitsShareOneConnectionAndNoThreads() throws Exception {
        int n = 2_000;
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<Optional<Signal>>> waits = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            waits.add(signals.awaitAsync("async:many:" + i, Duration.ofSeconds(30)));
        }
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).isLessThanOrEqualTo(4);
        await().atMost(Duration.ofSeconds(20)).until(() -> ((List<?>) redis.server().command("PUBSUB", "CHANNELS",
                Prefixed.key("async:many:*"))).size() == n);
        for (int i = 0; i < n; i++) {
            signals.signal("async:many:" + i, "v" + i);
        }
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        for (int i = 0; i < n; i++) {
            assertThat(waits.get(i).get()).map(Signal::data).contains("v" + i);
        }
        assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).isLessThanOrEqualTo(4);
        await().atMost(Duration.ofSeconds(10)).until(() -> ((List<?>) redis.server().command("PUBSUB", "CHANNELS",
                Prefixed.key("async:many:*"))).isEmpty());
    }
}
