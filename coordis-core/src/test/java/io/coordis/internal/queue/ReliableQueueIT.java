package io.coordis.internal.queue;

import io.coordis.Coordis;
import io.coordis.Outcome;
import io.coordis.TestClients;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Reliable queues on one Redis: exact acks, retries, dead letters, delays, sweeps, stats, close. */
class ReliableQueueIT {
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

    /** Every key of the queue other than the registry, heartbeats and counters: what must be empty at the end. */
    private long leftovers(String q) {
        long n = 0;
        for (Object key : (List<?>) foreign.command("KEYS", "*" + Prefixed.key(q) + "*")) {
            String k = (String) key;
            if (!k.endsWith(":consumers") && !k.contains(":hb:") && !k.contains(":settled")) {
                n++;
            }
        }
        return n;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aConsumerThatKeepsUpTakesEachArrivingMessageWithItsDeliveryCountAndAcksItExactly() throws Exception {
        ReliableQueue q = coordis.reliableQueue("keeps-up", QueueOptions.defaults().withSlots(1));
        try (Consumer c = q.consumer()) {
            assertThat(c.take(Duration.ofMillis(50))).as("empty queue").isEmpty(); // now it blocks first
            for (int round = 0; round < 20; round++) {
                String payload = "job " + (round % 3); // identical payloads among the rounds
                Thread pusher = new Thread(() -> {
                    try {
                        Thread.sleep(20);
                        foreign.command("LPUSH", Prefixed.key("keeps-up"), payload); // a foreign producer
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                pusher.start();
                Delivery first = c.take(Duration.ofSeconds(5)).orElseThrow();
                pusher.join();
                assertThat(first.text()).isEqualTo(payload);
                // odd rounds ask for the count only after settling: the settle's answer carries it
                boolean askFirst = round % 2 == 0;
                if (askFirst) {
                    assertThat(first.attempts()).as("round %d", round).isEqualTo(1);
                }
                assertThat(first.nack()).isEqualTo(Outcome.REQUEUED);
                assertThat(first.attempts()).as("round %d, after the nack", round).isEqualTo(1);
                Delivery again = c.take(Duration.ofSeconds(5)).orElseThrow();
                assertThat(again.text()).isEqualTo(payload);
                if (askFirst) {
                    assertThat(again.attempts()).as("the redelivery counts the failed one").isEqualTo(2);
                }
                assertThat(again.id()).isNotEqualTo(first.id());
                assertThat(again.ack()).isEqualTo(Outcome.ACKED);
                assertThat(again.attempts()).as("round %d, after the ack cleared the count", round).isEqualTo(2);
                assertThat(q.ack(again.id())).as("retried ack").isEqualTo(Outcome.ALREADY_SETTLED);
                assertThat(q.ack(first.id())).as("the nacked delivery").isEqualTo(Outcome.ALREADY_SETTLED);
                QueueStats stats = q.stats();
                assertThat(stats.depth()).isZero();
                assertThat(stats.inFlight()).isZero();
            }
        }
        assertThat(leftovers("keeps-up")).isZero();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tenThousandIdenticalPayloadsEachAckRemovesExactlyOne() throws Exception {
        ReliableQueue q = coordis.reliableQueue("same", QueueOptions.defaults().withSlots(64));
        List<byte[]> batch = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            batch.add("same payload".getBytes());
        }
        q.pushAll(batch);
        int acked = 0;
        try (Consumer c = q.consumer()) {
            while (acked < 10_000) {
                List<Delivery> got = c.take(64, Duration.ofMillis(200));
                assertThat(got).as("taken so far %d", acked).isNotEmpty();
                long inFlightBefore = q.stats().inFlight();
                assertThat(inFlightBefore).isEqualTo(got.size());
                // ack one by one for part of them, and the ack retried (as after a lost reply) removes nothing more
                Delivery first = got.get(0);
                assertThat(first.ack()).isEqualTo(Outcome.ACKED);
                assertThat(q.ack(first.id())).as("retried ack").isEqualTo(Outcome.ALREADY_SETTLED);
                assertThat(q.stats().inFlight()).isEqualTo(got.size() - 1);
                List<Outcome> rest = c.ack(got);
                assertThat(rest).containsOnly(Outcome.ACKED);
                assertThat(c.ack(got)).as("batch ack again").containsOnly(Outcome.ACKED);
                acked += got.size();
                assertThat(q.stats().inFlight()).isZero();
                assertThat(foreign.command("LLEN", Prefixed.key("same"))).isEqualTo(10_000L - acked);
            }
        }
        assertThat(leftovers("same")).as("lists left: %s", foreign.command("KEYS", "*" + Prefixed.key("same") + "*"))
                .isZero();
    }

    @Test
    void nackCountsAttemptsThenDeadLettersAndOperatorRequeues() throws Exception {
        ReliableQueue q = coordis.reliableQueue("flaky", QueueOptions.defaults().withMaxAttempts(3));
        q.push("poison");
        try (Consumer c = q.consumer()) {
            for (int attempt = 1; attempt <= 3; attempt++) {
                Delivery d = c.take(Duration.ofSeconds(1)).orElseThrow();
                assertThat(d.attempts()).isEqualTo(attempt);
                assertThat(d.nack()).isEqualTo(attempt < 3 ? Outcome.REQUEUED : Outcome.DEAD_LETTERED);
                assertThat(d.nack()).as("settled once").isEqualTo(attempt < 3 ? Outcome.REQUEUED : Outcome.DEAD_LETTERED);
            }
            assertThat(c.take(Duration.ZERO)).isEmpty();
            assertThat(q.stats().deadLetters()).isEqualTo(1);
            assertThat(foreign.command("LRANGE", Prefixed.derived("flaky", "dead"), "0", "-1"))
                    .isEqualTo(List.of("poison"));
            assertThat(q.requeueDead(10)).isEqualTo(1);
            Delivery again = c.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(again.attempts()).as("counts start over after an operator requeue").isEqualTo(1);
            assertThat(again.ack()).isEqualTo(Outcome.ACKED);
        }
        assertThat(leftovers("flaky")).isZero();
    }

    private long commandCalls(String command) {
        String info = String.valueOf(foreign.command("INFO", "commandstats"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(info);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void ackAndTakeSettlesOnceAndHandsOutTheNextMessageWithItsCountInOneCall() throws Exception {
        ReliableQueue q = coordis.reliableQueue("combined", QueueOptions.defaults().withSlots(1));
        q.pushAll(List.of("a".getBytes(), "b".getBytes(), "c".getBytes()));
        try (Consumer c = q.consumer()) {
            Delivery a = c.take(Duration.ofSeconds(1)).orElseThrow();
            Delivery again = a.nackAndTake(Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
            assertThat(a.outcome()).isEqualTo(Outcome.REQUEUED);
            assertThat(again.text()).as("a requeue is taken next").isEqualTo("a");
            assertThat(again.attempts()).isEqualTo(2);
            long blocking = commandCalls("blmove");
            Delivery b = again.ackAndTake(Duration.ofSeconds(1)).orElseThrow();
            assertThat(again.outcome()).isEqualTo(Outcome.ACKED);
            assertThat(again.attempts()).isEqualTo(2);
            assertThat(b.text()).isEqualTo("b");
            assertThat(b.attempts()).isEqualTo(1);
            assertThat(b.id()).as("the same slot, its next delivery").isNotEqualTo(again.id())
                    .startsWith(again.id().substring(0, again.id().lastIndexOf('/')));
            assertThat(again.ack()).as("remembered").isEqualTo(Outcome.ACKED);
            assertThat(q.ack(again.id())).as("settled exactly once in Redis").isEqualTo(Outcome.ALREADY_SETTLED);
            assertThat(q.stats().inFlight()).as("b is held as a delivery").isEqualTo(1);
            Delivery cc = b.ackAndTake(Duration.ofSeconds(1)).orElseThrow();
            assertThat(cc.text()).isEqualTo("c");
            assertThat(commandCalls("blmove")).as("no blocking take while messages were ready").isEqualTo(blocking);
            // none ready: it waits, and a message pushed meanwhile is taken
            Thread pusher = new Thread(() -> {
                try {
                    Thread.sleep(100);
                    foreign.command("LPUSH", Prefixed.key("combined"), "d");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            pusher.start();
            Delivery d = cc.ackAndTake(Duration.ofSeconds(5)).orElseThrow();
            pusher.join();
            assertThat(cc.outcome()).isEqualTo(Outcome.ACKED);
            assertThat(d.text()).isEqualTo("d");
            assertThat(d.ackAndTake(Duration.ZERO)).isEmpty();
            assertThat(d.outcome()).isEqualTo(Outcome.ACKED);
            assertThat(d.ackAndTake(Duration.ZERO)).as("settled before: a plain take").isEmpty();
            // the queue ran empty, so settles go alone for a while: a message that came meanwhile is still taken
            foreign.command("LPUSH", Prefixed.key("combined"), "e");
            Delivery e = c.take(Duration.ofSeconds(1)).orElseThrow();
            foreign.command("LPUSH", Prefixed.key("combined"), "f");
            Delivery f = e.ackAndTake(Duration.ZERO).orElseThrow();
            assertThat(e.outcome()).isEqualTo(Outcome.ACKED);
            assertThat(f.text()).isEqualTo("f");
            assertThat(f.ack()).isEqualTo(Outcome.ACKED);
        }
        assertThat(leftovers("combined")).isZero();
    }

    @Test
    void nackAndTakeDeadLettersAtTheLimitAndHandsOutTheNext() throws Exception {
        ReliableQueue q = coordis.reliableQueue("combined-dead", QueueOptions.defaults().withMaxAttempts(2));
        q.pushAll(List.of("poison".getBytes(), "fine".getBytes()));
        try (Consumer c = q.consumer()) {
            Delivery first = c.take(Duration.ofSeconds(1)).orElseThrow();
            Delivery second = first.nackAndTake(Duration.ZERO, Duration.ZERO).orElseThrow();
            assertThat(second.text()).isEqualTo("poison");
            assertThat(second.attempts()).isEqualTo(2);
            Delivery fine = second.nackAndTake(Duration.ZERO, Duration.ZERO).orElseThrow();
            assertThat(second.outcome()).isEqualTo(Outcome.DEAD_LETTERED);
            assertThat(fine.text()).isEqualTo("fine");
            assertThat(fine.ackAndTake(Duration.ZERO)).isEmpty();
            assertThat(foreign.command("LRANGE", Prefixed.derived("combined-dead", "dead"), "0", "-1"))
                    .isEqualTo(List.of("poison"));
        }
    }

    @Test
    void aMessageTakenWithAnAckIsSweptWhenItsConsumerDiesHoldingIt() throws Exception {
        QueueOptions fast = QueueOptions.defaults().withHeartbeatTtl(Duration.ofMillis(600))
                .withSweepInterval(Duration.ofMillis(100));
        ReliableQueue q = coordis.reliableQueue("combined-orphan", fast);
        q.pushAll(List.of("done".getBytes(), "held".getBytes()));
        Coordis dying = TestClients.connect(redis.uri());
        Consumer doomed = dying.reliableQueue("combined-orphan", fast).consumer();
        Delivery done = doomed.take(Duration.ofSeconds(1)).orElseThrow();
        Delivery held = done.ackAndTake(Duration.ZERO).orElseThrow();
        assertThat(held.text()).isEqualTo("held");
        long died = System.nanoTime();
        dying.close(); // heartbeats stop; nothing is released (as after kill -9)
        try (Consumer a = q.consumer()) {
            Delivery again = a.take(Duration.ofSeconds(5)).orElseThrow();
            Duration back = Duration.ofNanos(System.nanoTime() - died);
            assertThat(back).as("within heartbeatTtl + 2 x sweepInterval, plus slack")
                    .isLessThan(Duration.ofMillis(600 + 2 * 100 + 700));
            assertThat(again.text()).isEqualTo("held");
            assertThat(again.attempts()).as("the delivery that died counts").isEqualTo(2);
            assertThat(q.ack(held.id())).as("the dead consumer's delivery").isEqualTo(Outcome.GONE);
            assertThat(again.ackAndTake(Duration.ZERO)).isEmpty();
            assertThat(again.outcome()).isEqualTo(Outcome.ACKED);
        }
        assertThat(leftovers("combined-orphan")).isZero();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentConsumersAckingAndTakingLoseNothingAndAckEachOnce() throws Exception {
        ReliableQueue q = coordis.reliableQueue("combined-busy");
        int messages = 2000;
        java.util.Map<String, Integer> acked = new java.util.concurrent.ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        List<Consumer> consumers = new ArrayList<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
        for (int t = 0; t < 4; t++) {
            Consumer c = q.consumer();
            consumers.add(c);
            threads.add(new Thread(() -> {
                try {
                    java.util.Optional<Delivery> d = c.take(Duration.ofMillis(200));
                    while (acked.size() < messages) {
                        if (d.isEmpty()) {
                            d = c.take(Duration.ofMillis(50));
                            continue;
                        }
                        Delivery current = d.get();
                        d = current.ackAndTake(Duration.ofMillis(50));
                        assertThat(current.outcome()).isEqualTo(Outcome.ACKED);
                        acked.merge(current.text(), 1, Integer::sum);
                    }
                    d.ifPresent(left -> {
                        try {
                            left.nack();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                } catch (Throwable e) {
                    failed.compareAndSet(null, e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (int i = 0; i < messages; i += 100) {
            List<byte[]> chunk = new ArrayList<>();
            for (int k = i; k < i + 100; k++) {
                chunk.add(("m" + k).getBytes());
            }
            q.pushAll(chunk);
        }
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
        consumers.forEach(Consumer::close);
        assertThat(failed.get()).isNull();
        assertThat(acked).hasSize(messages);
        assertThat(acked.values()).as("each acked once").allMatch(n -> n == 1);
        assertThat(leftovers("combined-busy")).isZero();
    }

    @Test
    void delayedNackComesBackAfterTheDelayNotBefore() throws Exception {
        ReliableQueue q = coordis.reliableQueue("later", QueueOptions.defaults().withSweepInterval(Duration.ofMillis(100)));
        q.push("job");
        try (Consumer c = q.consumer()) {
            Delivery d = c.take(Duration.ofSeconds(1)).orElseThrow();
            long nacked = System.nanoTime();
            assertThat(d.nack(Duration.ofMillis(800))).isEqualTo(Outcome.DELAYED);
            assertThat(q.stats().delayed()).isEqualTo(1);
            assertThat(foreign.command("LLEN", Prefixed.key("later"))).as("not visible to anyone while delayed")
                    .isEqualTo(0L);
            Delivery back = c.take(Duration.ofSeconds(10)).orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - nacked)).isGreaterThanOrEqualTo(Duration.ofMillis(750));
            assertThat(back.attempts()).isEqualTo(2);
            back.ack();
        }
        assertThat(leftovers("later")).isZero();
    }

    @Test
    void closingPutsUnsettledMessagesBackAtTheFront() throws Exception {
        ReliableQueue q = coordis.reliableQueue("closing");
        q.pushAll(List.of("a".getBytes(), "b".getBytes(), "c".getBytes()));
        Consumer c = q.consumer();
        Delivery a = c.take(Duration.ofSeconds(1)).orElseThrow();
        assertThat(a.text()).isEqualTo("a");
        c.close();
        assertThat(a.ack()).isEqualTo(Outcome.GONE);
        assertThat(foreign.command("RPOP", Prefixed.key("closing"))).as("redelivered first").isEqualTo("a");
        assertThat(foreign.command("HLEN", Prefixed.derived("closing", "consumers"))).isEqualTo(0L);
    }

    @Test
    void sweepersRaceButNeverTakeFromALiveSlowConsumer() throws Exception {
        QueueOptions fast = QueueOptions.defaults().withHeartbeatTtl(Duration.ofMillis(1000))
                .withSweepInterval(Duration.ofMillis(50));
        ReliableQueue q = coordis.reliableQueue("slow", fast);
        q.pushAll(List.of("held".getBytes(), "other".getBytes()));
        try (Coordis second = TestClients.connect(redis.uri());
             Consumer slow = q.consumer();
             Consumer sweeperA = second.reliableQueue("slow", fast).consumer();
             Consumer sweeperB = q.consumer()) {
            Delivery held = slow.take(Duration.ofSeconds(1)).orElseThrow();
            // "processing" for 5 heartbeat TTLs while two consumers sweep every 50 ms, plus on-demand sweeps
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < end) {
                assertThat(q.sweep()).isZero();
                Thread.sleep(20);
            }
            // the script's own heartbeat check, not only the caller's look before it: asked to treat the live
            // consumer as dead, it moves nothing
            assertThat(((SlotQueue) q).release(held.id().split("/")[0], fast.slots(), "dead", false))
                    .as("moved by a sweep script run against a live consumer").isZero();
            assertThat(held.ack()).as("nothing was taken from the live consumer").isEqualTo(Outcome.ACKED);
            Delivery other = sweeperA.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(other.text()).isEqualTo("other");
            assertThat(other.attempts()).as("never requeued").isEqualTo(1);
            other.ack();
            assertThat(sweeperB.take(Duration.ZERO)).isEmpty();
        }
    }

    @Test
    void deadConsumersMessagesComeBackOnceWithAnAttemptCounted() throws Exception {
        QueueOptions fast = QueueOptions.defaults().withHeartbeatTtl(Duration.ofMillis(1000))
                .withSweepInterval(Duration.ofMillis(100));
        ReliableQueue q = coordis.reliableQueue("orphaned", fast);
        q.push("work");
        Coordis dying = TestClients.connect(redis.uri());
        Consumer doomed = dying.reliableQueue("orphaned", fast).consumer();
        Delivery lost = doomed.take(Duration.ofSeconds(1)).orElseThrow();
        dying.close(); // heartbeats stop; nothing is released (as after kill -9)
        try (Consumer a = q.consumer(); Consumer b = q.consumer()) {
            Delivery again = a.take(Duration.ofSeconds(5)).orElseThrow();
            assertThat(again.text()).isEqualTo("work");
            assertThat(again.attempts()).isEqualTo(2);
            assertThat(b.take(Duration.ofMillis(500))).as("requeued once only").isEmpty();
            assertThat(q.ack(lost.id())).as("the dead consumer's delivery").isEqualTo(Outcome.GONE);
            assertThat(again.ack()).isEqualTo(Outcome.ACKED);
            QueueStats stats = q.stats();
            assertThat(stats.consumers()).filteredOn(s -> s.id().equals(lost.id().split("/")[0]))
                    .singleElement().satisfies(s -> assertThat(s.alive()).isFalse());
        }
    }

    @Test
    void closeEndsABlockedTakeAndNoMessageIsMovedAfterwards() throws Exception {
        ReliableQueue q = coordis.reliableQueue("close-blocked");
        Consumer c = q.consumer();
        java.util.concurrent.CompletableFuture<Throwable> ended = new java.util.concurrent.CompletableFuture<>();
        Thread taker = new Thread(() -> {
            try {
                c.take(Duration.ofSeconds(30));
                ended.complete(null);
            } catch (Throwable t) {
                ended.complete(t);
            }
        });
        taker.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> String.valueOf(foreign.command("CLIENT", "LIST"))
                .contains("cmd=blmove"));
        long start = System.nanoTime();
        c.close();
        assertThat(ended.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        foreign.command("LPUSH", Prefixed.key("close-blocked"), "after close");
        Thread.sleep(200);
        assertThat(foreign.command("LLEN", Prefixed.key("close-blocked"))).as("not taken by the closed consumer")
                .isEqualTo(1L);
        assertThat(foreign.command("HLEN", Prefixed.derived("close-blocked", "consumers"))).isEqualTo(0L);
        assertThat(foreign.command("KEYS", Prefixed.derived("close-blocked", "proc:*"))).isEqualTo(List.of());
    }

    @Test
    void statsReportDepthAgeInFlightDeadAndConsumers() throws Exception {
        ReliableQueue q = coordis.reliableQueue("stats");
        q.push("old");
        Thread.sleep(300);
        q.push("new");
        foreign.command("LPUSH", Prefixed.key("stats"), "foreign");
        QueueStats s = q.stats();
        assertThat(s.depth()).isEqualTo(3);
        assertThat(s.oldestAge()).hasValueSatisfying(age -> assertThat(age).isGreaterThanOrEqualTo(Duration.ofMillis(250)));
        try (Consumer c = q.consumer()) {
            Delivery d = c.take(Duration.ZERO).orElseThrow();
            s = q.stats();
            assertThat(s.depth()).isEqualTo(2);
            assertThat(s.inFlight()).isEqualTo(1);
            assertThat(s.consumers()).singleElement().satisfies(cs -> {
                assertThat(cs.id()).isEqualTo(c.id());
                assertThat(cs.alive()).isTrue();
                assertThat(cs.inFlight()).isEqualTo(1);
            });
            d.ack();
            c.take(Duration.ZERO).orElseThrow().ack();
            assertThat(q.stats().oldestAge()).as("pushed by a foreign client: unknown").isEmpty();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aBatchTakeThatBlocksHandsOutWhatArrivesAndStrandsNothing() throws Exception {
        ReliableQueue q = coordis.reliableQueue("batch-wake", QueueOptions.defaults().withSlots(4));
        try (Consumer c = q.consumer()) {
            for (int round = 0; round < 3; round++) {
                String payload = "wake-" + round;
                Thread pusher = new Thread(() -> {
                    try {
                        Thread.sleep(200);
                        foreign.command("LPUSH", Prefixed.key("batch-wake"), payload);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                pusher.start();
                List<Delivery> got = c.take(4, Duration.ofSeconds(10));
                pusher.join();
                assertThat(got).singleElement().satisfies(d -> assertThat(d.text()).isEqualTo(payload));
                assertThat(got.get(0).ack()).isEqualTo(Outcome.ACKED);
            }
            assertThat(q.stats().inFlight()).as("nothing left in a slot").isZero();
        }
    }

    @Test
    void settlingADeliveryOfAnUnknownConsumerAnswersGoneAndLeavesNoKey() throws Exception {
        ReliableQueue q = coordis.reliableQueue("unknown-consumer");
        assertThat(q.ack("0123456789ab/0/1")).isEqualTo(Outcome.GONE);
        assertThat(q.nack("0123456789ab/3/7", Duration.ZERO)).isEqualTo(Outcome.GONE);
        assertThat(q.ack("0123456789ab/3/7")).as("a retry answers the same").isEqualTo(Outcome.GONE);
        assertThat(foreign.command("KEYS", "*" + Prefixed.key("unknown-consumer") + "*")).isEqualTo(List.of());
    }

    @Test
    void aBatchNotesItsTimeOnceAndEveryMessageOfItStillHasAnAge() throws Exception {
        ReliableQueue q = coordis.reliableQueue("batch-age");
        q.pushAll(List.of("a".getBytes(), "b".getBytes(), "c".getBytes(), "d".getBytes()));
        assertThat(foreign.command("HLEN", Prefixed.derived("batch-age", "enqueued"))).as("first and last payload")
                .isEqualTo(2L);
        Thread.sleep(300);
        try (Consumer c = q.consumer()) {
            c.take(Duration.ZERO).orElseThrow().ack(); // the first, whose time was noted
            QueueStats s = q.stats();
            assertThat(s.depth()).isEqualTo(3);
            assertThat(s.oldestAge()).as("read from the last payload of the same push")
                    .hasValueSatisfying(age -> assertThat(age).isGreaterThanOrEqualTo(Duration.ofMillis(250)));
            for (Delivery d : c.take(3, Duration.ZERO)) {
                d.ack();
            }
        }
        assertThat(q.stats().oldestAge()).isEmpty();
        assertThat(foreign.command("EXISTS", Prefixed.derived("batch-age", "enqueued"))).as("cleared by the acks")
                .isEqualTo(0L);
    }

    @Test
    void blockingTakeWakesOnAForeignPush() throws Exception {
        ReliableQueue q = coordis.reliableQueue("wake");
        try (Consumer c = q.consumer()) {
            Thread pusher = new Thread(() -> {
                try {
                    Thread.sleep(300);
                    try (RespClient p = RespClient.connect(redis.server())) {
                        p.command("LPUSH", Prefixed.key("wake"), "hello");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            pusher.start();
            Delivery d = c.take(Duration.ofSeconds(10)).orElseThrow();
            assertThat(d.text()).isEqualTo("hello");
            d.ack();
            pusher.join();
        }
    }

    @Test
    void interruptedBlockingTakeStrandsNothing() throws Exception {
        ReliableQueue q = coordis.reliableQueue("interrupted");
        try (Consumer c = q.consumer()) {
            Thread taker = new Thread(() -> {
                try {
                    c.take(Duration.ofSeconds(30));
                } catch (InterruptedException expected) {
                    // the point
                }
            });
            taker.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> String.valueOf(foreign.command("CLIENT", "LIST"))
                    .contains("cmd=blmove"));
            taker.interrupt();
            taker.join(5000);
            assertThat(taker.isAlive()).isFalse();
            q.push("after");
            Delivery d = c.take(Duration.ofSeconds(2)).orElseThrow();
            assertThat(d.text()).isEqualTo("after");
            d.ack();
        }
        assertThat(leftovers("interrupted")).isZero();
    }
}
