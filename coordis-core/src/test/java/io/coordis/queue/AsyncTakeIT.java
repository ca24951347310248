package io.coordis.queue;

import io.coordis.Coordis;
import io.coordis.Outcome;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** Reliable takes without a thread: takeAsync delivers, times out, and a cancel leaves no message stranded. */
class AsyncTakeIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private RespClient foreign;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        foreign = RespClient.connect(redis.server());
    }

    @AfterEach
    void close() {
        foreign.close();
        coordis.close();
    }

    /** Messages in every consumer's processing slots of queue {@code q}. */
    private long inFlight(String q) {
        long n = 0;
        for (Object key : (List<?>) foreign.command("KEYS", "*" + Prefixed.key(q) + "}:proc:*")) {
            n += (Long) foreign.command("LLEN", (String) key);
        }
        return n;
    }

    private long ready(String q) {
        return (Long) foreign.command("LLEN", Prefixed.key(q));
    }

    private static String text(Delivery d) {
        return new String(d.payload(), StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void deliversAMessageThatArrivesWhileItWaitsOnTheCallbackExecutor() throws Exception {
        ReliableQueue q = coordis.reliableQueue("async:q:one");
        try (Consumer c = q.consumer()) {
            CompletableFuture<Optional<Delivery>> waiting = c.takeAsync(Duration.ofSeconds(10));
            CompletableFuture<String> thread = waiting.thenApply(d -> Thread.currentThread().getName());
            Thread.sleep(100);
            assertThat(waiting).isNotDone();
            q.push("hello");
            // waited for through the dependent: a thread blocked in get() may run the future's dependents itself
            assertThat(thread.get(5, TimeUnit.SECONDS)).startsWith("coordis-callback");
            Delivery d = waiting.get().orElseThrow();
            assertThat(text(d)).isEqualTo("hello");
            assertThat(d.attempts()).isEqualTo(1);
            assertThat(d.ack()).isEqualTo(Outcome.ACKED);

            q.push("ready");
            assertThat(c.takeAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).map(AsyncTakeIT::text).contains("ready");
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void timesOutAsEmpty() throws Exception {
        ReliableQueue q = coordis.reliableQueue("async:q:empty");
        try (Consumer c = q.consumer()) {
            long start = System.nanoTime();
            assertThat(c.takeAsync(Duration.ofMillis(300)).get(5, TimeUnit.SECONDS)).isEmpty();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(290L, 2_000L);
            assertThat(c.takeAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCancelRacingTheTakeNeverStrandsAMessageNorCountsAnAttempt() throws Exception {
        String name = "async:q:race";
        ReliableQueue q = coordis.reliableQueue(name, QueueOptions.defaults().withSlots(1));
        int rounds = 1_000;
        int cancelled = 0;
        int acked = 0;
        try (Consumer c = q.consumer()) {
            for (int i = 0; i < rounds; i++) {
                CompletableFuture<Optional<Delivery>> waiting = c.takeAsync(Duration.ofSeconds(10));
                if (i % 3 != 2) {
                    Thread.sleep(5); // its BLMOVE is out: the cancel ends it (CLIENT KILL)
                }
                String payload = "m" + i;
                boolean cancelledFirst = i % 3 == 1 && waiting.cancel(true); // during its BLMOVE, before any push
                CompletableFuture<Long> pushed = CompletableFuture.supplyAsync(() -> {
                    try {
                        return q.push(payload);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_500_000));
                boolean cancelledNow = cancelledFirst || waiting.cancel(true);
                if (cancelledNow) {
                    cancelled++;
                } else {
                    Delivery d = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
                    assertThat(d.attempts()).as("a cancelled take counts no failed delivery").isEqualTo(1);
                    assertThat(d.ack()).isEqualTo(Outcome.ACKED);
                    acked++;
                }
                pushed.get(5, TimeUnit.SECONDS);
                if (cancelledNow) {
                    // whatever the cancelled take had moved is back, uncounted: the next round starts empty
                    Delivery back = c.take(Duration.ofSeconds(5)).orElseThrow(
                            () -> new AssertionError("the message of a cancelled take is stranded"));
                    assertThat(text(back)).isEqualTo(payload);
                    assertThat(back.attempts()).as("a cancelled take counts no failed delivery").isEqualTo(1);
                    assertThat(back.ack()).isEqualTo(Outcome.ACKED);
                    acked++;
                }
            }
        }
        assertThat(cancelled).isPositive();
        assertThat(inFlight(name)).isZero();
        assertThat(ready(name)).isZero();
        assertThat(acked).isEqualTo(rounds);
        assertThat(foreign.command("HLEN", "{" + Prefixed.key(name) + "}:attempts")).isEqualTo(0L);
        System.out.printf("take cancel race: %d of %d cancelled%n", cancelled, rounds);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoHundredTakesAtOnceWaitForSixteenSlotsWithoutAThreadEach() throws Exception {
        String name = "async:q:many";
        int n = 200;
        ReliableQueue q = coordis.reliableQueue(name);
        ExecutorService acker = Executors.newFixedThreadPool(2);
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        try (Consumer c = q.consumer()) {
            List<CompletableFuture<String>> taken = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                taken.add(c.takeAsync(Duration.ofSeconds(40)).thenApplyAsync(d -> {
                    Delivery delivery = d.orElseThrow();
                    try {
                        assertThat(delivery.ack()).isEqualTo(Outcome.ACKED); // frees the slot for the next take
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return text(delivery);
                }, acker));
            }
            Thread.sleep(200);
            String clients = (String) redis.server().command("CLIENT", "LIST");
            assertThat(clients.lines().filter(l -> l.contains("cmd=blmove")).count())
                    .as("one BLMOVE per slot at most").isLessThanOrEqualTo(16);
            List<byte[]> payloads = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                payloads.add(("p" + i).getBytes(StandardCharsets.UTF_8));
            }
            q.pushAll(payloads);
            CompletableFuture.allOf(taken.toArray(CompletableFuture[]::new)).get(45, TimeUnit.SECONDS);
            Set<String> got = new HashSet<>();
            taken.forEach(f -> got.add(f.join()));
            assertThat(got).hasSize(n);
            assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).isLessThanOrEqualTo(8);
        } finally {
            acker.shutdownNow();
        }
        assertThat(inFlight(name)).isZero();
        assertThat(ready(name)).isZero();
    }
}
