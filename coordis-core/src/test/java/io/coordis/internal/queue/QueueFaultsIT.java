package io.coordis.internal.queue;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Outcome;
import io.coordis.TestClients;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.FaultProxy;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Ambiguous replies (the command ran, its reply was lost) through a {@link FaultProxy}, and Redis being
 * unreachable: nothing is lost, duplicates are counted, and no other message is touched.
 */
class QueueFaultsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /**
     * Long heartbeat and sweep periods, so no background reply takes the dropped one's place. A consumer's
     * first sweep comes at a random point of the interval, so the interval is the longest allowed: with one
     * minute, about one test run in sixty met a sweep at the moment of its fault.
     */
    private static final QueueOptions QUIET = QueueOptions.defaults().withHeartbeatTtl(Duration.ofSeconds(60))
            .withSweepInterval(QueueOptions.MAX_INTERVAL);

    private FaultProxy proxy;
    private Coordis coordis;
    private RespClient direct;

    @BeforeEach
    void connect() {
        proxy = FaultProxy.to(redis.server());
        coordis = TestClients.builder().url(proxy.uri()).commandTimeout(Duration.ofMillis(500)).connect();
        direct = RespClient.connect(redis.server());
        // loaded beforehand, so the dropped reply is the script's own and not a NOSCRIPT before it ran
        for (var script : List.of(SlotQueue.PUSH, SlotQueue.SETTLE, SlotQueue.BEAT,
                SlotQueue.SWEEP, SlotQueue.PROMOTE)) {
            direct.command("SCRIPT", "LOAD", script.source());
        }
    }

    /** Opens the queue connection, so that the dropped reply is not one of its handshake. */
    private ReliableQueue warm(ReliableQueue q) throws InterruptedException {
        q.stats();
        return q;
    }

    @AfterEach
    void close() {
        direct.close();
        coordis.close();
        proxy.close();
    }

    /** Takes and acks everything left, counting each payload; asserts every list of the queue is empty. */
    private Map<String, Integer> drain(ReliableQueue q) throws InterruptedException {
        Map<String, Integer> seen = new HashMap<>();
        try (Coordis clean = TestClients.connect(redis.uri());
             Consumer c = clean.reliableQueue(q.name(), QUIET).consumer()) {
            Optional<Delivery> d;
            while ((d = c.take(Duration.ofMillis(200))).isPresent()) {
                seen.merge(d.get().text(), 1, Integer::sum);
                assertThat(d.get().ack()).isEqualTo(Outcome.ACKED);
            }
        }
        List<?> keys = (List<?>) direct.command("KEYS", "*" + Prefixed.key(q.name()) + "*");
        assertThat(keys).as("left over").allMatch(k -> String.valueOf(k).contains(":consumers")
                || String.valueOf(k).contains(":settled") || String.valueOf(k).contains(":hb:"));
        for (Object k : keys) {
            if (String.valueOf(k).contains(":proc:")) {
                throw new AssertionError("stuck in a processing slot: " + k);
            }
        }
        return seen;
    }

    @Test
    void lostReplyToTheNonBlockingMoveIsHandedOutByTheNextTake() throws Exception {
        ReliableQueue q = coordis.reliableQueue("move-lost", QUIET);
        q.push("only");
        try (Consumer c = q.consumer()) {
            proxy.dropNextReply();
            assertThatThrownBy(() -> c.take(Duration.ZERO)).isInstanceOf(NodeUnavailableException.class);
            assertThat(proxy.droppedReplies()).isEqualTo(1);
            assertThat(direct.command("LLEN", Prefixed.key("move-lost"))).as("the move ran").isEqualTo(0L);
            Delivery d = c.take(Duration.ZERO).orElseThrow();
            assertThat(d.text()).isEqualTo("only");
            assertThat(d.attempts()).as("not a failed delivery").isEqualTo(1);
            assertThat(d.ack()).isEqualTo(Outcome.ACKED);
        }
        assertThat(drain(q)).isEmpty();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void lostReplyToTheBlockingMoveIsHandedOutByTheSameTake() throws Exception {
        ReliableQueue q = coordis.reliableQueue("blmove-lost", QUIET);
        try (Consumer c = q.consumer()) {
            CompletableFuture<Optional<Delivery>> taking = CompletableFuture.supplyAsync(() -> {
                try {
                    return c.take(Duration.ofSeconds(3));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> String.valueOf(direct.command("CLIENT", "LIST"))
                    .contains("cmd=blmove"));
            proxy.dropNextReply();
            direct.command("LPUSH", Prefixed.key("blmove-lost"), "payload");
            Delivery d = taking.get(20, TimeUnit.SECONDS).orElseThrow(() -> new AssertionError("take gave up"));
            assertThat(proxy.droppedReplies()).as("the BLMOVE reply was dropped").isEqualTo(1);
            assertThat(d.text()).isEqualTo("payload");
            assertThat(d.ack()).isEqualTo(Outcome.ACKED);
        }
        assertThat(drain(q)).isEmpty();
    }

    @Test
    void lostReplyToAnAckRetriedRemovesNoIdenticalTwin() throws Exception {
        ReliableQueue q = coordis.reliableQueue("ack-lost", QUIET);
        q.pushAll(List.of("twin".getBytes(), "twin".getBytes()));
        try (Consumer c = q.consumer()) {
            List<Delivery> both = c.take(2, Duration.ZERO);
            assertThat(both).hasSize(2);
            proxy.dropNextReply();
            assertThatThrownBy(() -> both.get(0).ack()).isInstanceOf(CoordisException.class);
            assertThat(proxy.droppedReplies()).isEqualTo(1);
            assertThat(q.stats().inFlight()).as("the ack ran once").isEqualTo(1);
            assertThat(both.get(0).ack()).as("retried").isEqualTo(Outcome.ALREADY_SETTLED);
            assertThat(q.stats().inFlight()).as("the twin is still in flight").isEqualTo(1);
            assertThat(both.get(1).ack()).isEqualTo(Outcome.ACKED);
        }
        assertThat(drain(q)).isEmpty();
    }

    @Test
    void lostReplyToANackRetriedRequeuesOnce() throws Exception {
        ReliableQueue q = coordis.reliableQueue("nack-lost", QUIET);
        q.push("retry me");
        try (Consumer c = q.consumer()) {
            Delivery d = c.take(Duration.ZERO).orElseThrow();
            proxy.dropNextReply();
            assertThatThrownBy(d::nack).isInstanceOf(CoordisException.class);
            assertThat(d.nack()).isEqualTo(Outcome.ALREADY_SETTLED);
            assertThat(direct.command("LLEN", Prefixed.key("nack-lost"))).as("requeued exactly once").isEqualTo(1L);
        }
        assertThat(drain(q)).containsExactly(Map.entry("retry me", 1));
    }

    @Test
    void lostReplyToAPushRetriedLosesNothingAndTheDuplicateIsCounted() throws Exception {
        ReliableQueue q = warm(coordis.reliableQueue("push-lost", QUIET));
        List<String> sent = new ArrayList<>();
        int retries = 0;
        for (int i = 0; i < 20; i++) {
            String m = "m" + i;
            if (i % 5 == 0) {
                proxy.dropNextReply();
            }
            while (true) {
                try {
                    q.push(m);
                    break;
                } catch (NodeUnavailableException e) {
                    retries++;
                }
            }
            sent.add(m);
        }
        Map<String, Integer> seen = drain(q);
        assertThat(seen.keySet()).as("lost").containsAll(sent);
        int duplicates = seen.values().stream().mapToInt(n -> n - 1).sum();
        System.out.println("push with lost replies: " + retries + " retries, " + duplicates + " duplicates, 0 lost");
        assertThat(proxy.droppedReplies()).isEqualTo(4);
        assertThat(retries).isGreaterThanOrEqualTo(4);
        assertThat(duplicates).as("a push whose reply was lost ran, so its retry is a duplicate").isEqualTo(4);
    }

    /**
     * A sweep asks about every registered consumer at once, so its time does not grow with the registry, where
     * dead consumers stay registered for a minute: one after the other, 40 of them cost 80 round trips, over 3 s
     * at this latency, longer than the recovery bound of heartbeat TTL + two sweep intervals on its own.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aSweepOfManyDeadConsumersTakesAFewRoundTripsNotTwoPerConsumer() throws Exception {
        int dead = 40;
        QueueOptions options = QUIET.withSlots(1).withHeartbeatTtl(QueueOptions.MIN_HEARTBEAT_TTL);
        ReliableQueue q = warm(coordis.reliableQueue("many-dead", options));
        try (Coordis dying = TestClients.connect(redis.uri())) {
            ReliableQueue theirs = dying.reliableQueue("many-dead", options);
            for (int i = 0; i < dead; i++) {
                theirs.push("m" + i);
                assertThat(theirs.consumer().take(Duration.ZERO)).isPresent();
            }
        } // heartbeats stop; nothing is released (as after kill -9)
        await().atMost(Duration.ofSeconds(10)).until(() -> ((List<?>) direct.command("KEYS",
                Prefixed.derived("many-dead", "hb:*"))).isEmpty());
        proxy.latency(Duration.ofMillis(20));
        long start = System.nanoTime();
        int moved = q.sweep();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        proxy.pass();
        assertThat(moved).isEqualTo(dead);
        assertThat(tookMs).as("sweep of %d dead consumers at 40 ms a round trip (ms)", dead).isLessThan(1500);
        assertThat(drain(q)).hasSize(dead).allSatisfy((m, n) -> assertThat(n).isOne());
    }

    @Test
    void redisUnreachableFailsClearlyAndLosesNothing() throws Exception {
        ReliableQueue q = coordis.reliableQueue("down", QUIET);
        q.push("kept");
        try (Consumer c = q.consumer()) {
            Delivery d = c.take(Duration.ZERO).orElseThrow();
            proxy.blackhole();
            try {
                assertThatThrownBy(() -> q.push("refused")).isInstanceOf(NodeUnavailableException.class)
                        .hasMessageContaining(proxy.address());
                assertThatThrownBy(d::ack).isInstanceOf(NodeUnavailableException.class);
                assertThatThrownBy(() -> c.take(Duration.ZERO)).isInstanceOf(NodeUnavailableException.class);
            } finally {
                proxy.pass();
            }
            // The first command after healing may still meet a reconnect attempt made during the blackhole (and
            // fail); the ack is safe to retry (exactly once per delivery), as the Delivery javadoc tells callers.
            assertThat(ackRetrying(d)).isEqualTo(Outcome.ACKED);
        }
        // the blackholed push was delivered when the partition healed: at least once, never lost
        assertThat(drain(q).keySet()).containsAnyOf("refused").doesNotContain("kept");
    }

    /**
     * Redis killed (connections refused, not held): push, take and ack fail at once with an error naming the
     * server; after it comes back from its append-only file the held delivery is acked exactly once, the
     * refused push is absent (the caller was told), and every other message is still there.
     */
    @Test
    void redisKilledRefusesClearlyAndAfterItsRestartNothingIsLostOrStuck() throws Exception {
        try (io.coordis.testkit.RedisServer server = io.coordis.testkit.RedisServer.builder().appendOnly(true)
                .appendFsync("always").start();
             Coordis c = TestClients.builder().url(server.uri()).commandTimeout(Duration.ofMillis(500)).connect()) {
            ReliableQueue q = c.reliableQueue("killed", QUIET);
            q.push("held");
            q.push("waiting");
            try (Consumer consumer = q.consumer()) {
                Delivery d = consumer.take(Duration.ZERO).orElseThrow();
                assertThat(d.text()).isEqualTo("held");
                server.kill();
                for (org.assertj.core.api.ThrowableAssert.ThrowingCallable call : List.<org.assertj.core.api.ThrowableAssert.ThrowingCallable>of(
                        () -> q.push("refused"), () -> consumer.take(Duration.ZERO), d::ack, q::stats)) {
                    long start = System.nanoTime();
                    assertThatThrownBy(call).isInstanceOf(NodeUnavailableException.class)
                            .hasMessageContaining(server.address()).hasMessageNotContaining("Exception:");
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                            .as("fails within the command timeout + 1 s").isLessThan(1500);
                }
                server.restart(Duration.ZERO);
                assertThat(ackRetrying(d)).isEqualTo(Outcome.ACKED);
                assertThat(q.ack(d.id())).as("asked again by id, from Redis").isEqualTo(Outcome.ALREADY_SETTLED);
            }
            Map<String, Integer> left = new HashMap<>();
            try (Consumer consumer = q.consumer()) {
                Optional<Delivery> d;
                while ((d = consumer.take(Duration.ofMillis(200))).isPresent()) {
                    left.merge(d.get().text(), 1, Integer::sum);
                    assertThat(d.get().ack()).isEqualTo(Outcome.ACKED);
                }
            }
            assertThat(left).isEqualTo(Map.of("waiting", 1));
            try (RespClient raw = server.client()) {
                assertThat((List<?>) raw.command("KEYS", Prefixed.derived("killed", "proc:*")))
                        .as("stuck in a processing slot").isEmpty();
                assertThat(raw.command("LLEN", Prefixed.key("killed"))).isEqualTo(0L);
            }
        }
    }

    /** Acks {@code d}, retrying for up to 10 s while Redis is unavailable (safe: a delivery settles once). */
    private static Outcome ackRetrying(Delivery d) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return d.ack();
            } catch (NodeUnavailableException e) {
                if (System.nanoTime() > until) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
