package io.coordis.queue;

import io.coordis.Coordis;
import io.coordis.Outcome;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Plain list queues: interop with foreign clients both ways, order, batches, blocking, bad input. */
class QueueIT {
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

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void foreignProducerFeedsFifoConsumerInOrder() throws Exception {
        for (int i = 0; i < 5; i++) {
            foreign.command("LPUSH", Prefixed.key("jobs"), "m" + i);
        }
        Queue q = coordis.queue("jobs");
        List<String> got = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            got.add(new String(q.pop().orElseThrow(), StandardCharsets.UTF_8));
        }
        assertThat(got).containsExactly("m0", "m1", "m2", "m3", "m4");
        assertThat(q.pop()).isEmpty();
    }

    @Test
    void lifoTakesNewestFirst() throws Exception {
        Queue q = coordis.queue("stack", QueueOptions.defaults().withOrder(Order.LIFO));
        q.pushAll(List.of(b("a"), b("b"), b("c")));
        assertThat(q.pop(3)).extracting(x -> new String(x, StandardCharsets.UTF_8)).containsExactly("c", "b", "a");
    }

    /**
     * Foreign producers, as a Python client would ({@code LPUSH q a}, then b, then c): a LIFO consumer takes
     * c, b, a (also when blocked first), a reliable FIFO consumer takes a, b, c, a reliable LIFO consumer c, b, a.
     */
    @Test
    void foreignPushesComeOutInOrderForFifoAndLifoPlainAndReliableConsumers() throws Exception {
        for (String m : List.of("a", "b", "c")) {
            foreign.command("LPUSH", Prefixed.key("fstack"), m);
        }
        Queue lifo = coordis.queue("fstack", QueueOptions.defaults().withOrder(Order.LIFO));
        List<String> popped = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            popped.add(new String(lifo.pop().orElseThrow(), StandardCharsets.UTF_8));
        }
        assertThat(popped).containsExactly("c", "b", "a");

        java.util.concurrent.CompletableFuture<java.util.Optional<byte[]>> blocked =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    try {
                        return lifo.pop(Duration.ofSeconds(10));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                ((String) foreign.command("CLIENT", "LIST")).contains("cmd=blpop"));
        foreign.command("LPUSH", Prefixed.key("fstack"), "late");
        assertThat(blocked.get(5, java.util.concurrent.TimeUnit.SECONDS)).hasValueSatisfying(
                v -> assertThat(new String(v, StandardCharsets.UTF_8)).isEqualTo("late"));

        for (Order order : List.of(Order.FIFO, Order.LIFO)) {
            String name = "freliable-" + order;
            for (String m : List.of("a", "b", "c")) {
                foreign.command("LPUSH", Prefixed.key(name), m);
            }
            List<String> taken = new java.util.ArrayList<>();
            try (Consumer c = coordis.reliableQueue(name, QueueOptions.defaults().withOrder(order)).consumer()) {
                for (int i = 0; i < 3; i++) {
                    Delivery d = c.take(Duration.ofSeconds(1)).orElseThrow();
                    taken.add(d.text());
                    assertThat(d.ack()).isEqualTo(Outcome.ACKED);
                }
            }
            assertThat(taken).as(order.toString()).isEqualTo(order == Order.FIFO ? List.of("a", "b", "c") : List.of("c", "b", "a"));
        }
    }

    @Test
    void foreignRpopGetsExactlyThePushedBytesIncludingNonUtf8() throws Exception {
        byte[] binary = {(byte) 0xff, 0, (byte) 0xc3, 0x28, '\r', '\n', (byte) 0x80};
        coordis.queue("bin").push(binary);
        coordis.reliableQueue("bin").push(binary);
        assertThat((byte[]) foreign.commandBinary(b("RPOP"), b(Prefixed.key("bin")))).isEqualTo(binary);
        assertThat((byte[]) foreign.commandBinary(b("RPOP"), b(Prefixed.key("bin")))).isEqualTo(binary);
        assertThat(foreign.command("LLEN", Prefixed.key("bin"))).isEqualTo(0L);
        foreign.commandBinary(b("LPUSH"), b(Prefixed.key("bin")), binary);
        try (Consumer c = coordis.reliableQueue("bin").consumer()) {
            Delivery d = c.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(d.payload()).isEqualTo(binary);
            assertThat(d.ack()).isEqualTo(Outcome.ACKED);
        }
    }

    @Test
    void batchPushKeepsOrderAndBatchPopTakesSeveral() throws Exception {
        Queue q = coordis.queue("batch");
        List<byte[]> many = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            many.add(b("x" + i));
        }
        assertThat(q.pushAll(many)).isEqualTo(10);
        assertThat(foreign.command("RPOP", Prefixed.key("batch"))).isEqualTo("x0");
        assertThat(q.pop(4)).extracting(x -> new String(x, StandardCharsets.UTF_8)).containsExactly("x1", "x2", "x3", "x4");
        assertThat(q.depth()).isEqualTo(5);
    }

    @Test
    void blockingPopWaitsForAPushAndTimesOutEmpty() throws Exception {
        Queue q = coordis.queue("blocking");
        long start = System.nanoTime();
        assertThat(q.pop(Duration.ofMillis(300))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        Thread pusher = new Thread(() -> {
            try {
                Thread.sleep(200);
                foreign.command("LPUSH", Prefixed.key("blocking"), "late");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        pusher.start();
        assertThat(q.pop(Duration.ofSeconds(5)).map(x -> new String(x, StandardCharsets.UTF_8))).contains("late");
        pusher.join();
    }

    @Test
    void seedSafePopMovesIntoCallerNamedListAndRemoveAcks() throws Exception {
        Queue q = coordis.queue("safe");
        q.push("one");
        q.push("one");
        byte[] got = q.moveTo("safe:cache", Duration.ofMillis(500)).orElseThrow();
        assertThat(new String(got, StandardCharsets.UTF_8)).isEqualTo("one");
        assertThat(foreign.command("LRANGE", Prefixed.key("safe:cache"), "0", "-1")).isEqualTo(List.of("one"));
        assertThat(q.remove("safe:cache", got)).isTrue();
        assertThat(q.remove("safe:cache", got)).isFalse();
        // and the other way round: a foreign RPOPLPUSH into a cache list, removed by Coordis
        assertThat(foreign.command("RPOPLPUSH", Prefixed.key("safe"), Prefixed.key("py:cache"))).isEqualTo("one");
        assertThat(q.remove("py:cache", b("one"))).isTrue();
        assertThat(foreign.command("EXISTS", Prefixed.key("safe"), Prefixed.key("safe:cache"),
                Prefixed.key("py:cache"))).isEqualTo(0L);
    }

    @Test
    void wrongTypeIsNamedAndNothingIsChanged() throws Exception {
        foreign.command("SET", Prefixed.key("taken"), "a string");
        Queue q = coordis.queue("taken");
        assertThatThrownBy(() -> q.push("m")).isInstanceOf(WrongTypeException.class)
                .hasMessageContaining("'taken'").hasMessageContaining("string");
        assertThatThrownBy(q::pop).isInstanceOf(WrongTypeException.class).hasMessageContaining("'taken'");
        assertThatThrownBy(() -> q.pop(Duration.ofMillis(100))).isInstanceOf(WrongTypeException.class)
                .hasMessageContaining("'taken'");
        ReliableQueue r = coordis.reliableQueue("taken");
        assertThatThrownBy(() -> r.push("m")).isInstanceOf(WrongTypeException.class)
                .satisfies(e -> assertThat(((WrongTypeException) e).key()).isEqualTo(Prefixed.key("taken")));
        try (Consumer c = r.consumer()) {
            assertThatThrownBy(() -> c.take(Duration.ZERO)).isInstanceOf(WrongTypeException.class)
                    .hasMessageContaining("'taken'");
        }
        assertThat(foreign.command("GET", Prefixed.key("taken"))).isEqualTo("a string");
    }

    @Test
    void oversizedMessageIsRefusedBeforeSendingAndABatchPushesNothing() throws Exception {
        QueueOptions small = QueueOptions.defaults().withMaxMessageBytes(8);
        Queue q = coordis.queue("small", small);
        assertThatThrownBy(() -> q.pushAll(List.of(b("ok"), b("much too long"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("13 bytes")
                .hasMessageContaining("maximum of 8").hasMessageContaining("nothing was pushed");
        assertThatThrownBy(() -> coordis.reliableQueue("small", small).push("much too long"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(foreign.command("EXISTS", Prefixed.key("small"))).isEqualTo(0L);
    }

    @Test
    void badNamesAndOptionsAreRefusedClearly() {
        assertThatThrownBy(() -> coordis.queue("")).hasMessageContaining("must not be empty");
        assertThatThrownBy(() -> QueueOptions.defaults().withMaxAttempts(0)).hasMessageContaining("at least 1, was 0");
        assertThatThrownBy(() -> QueueOptions.defaults().withHeartbeatTtl(Duration.ofMillis(10)))
                .hasMessageContaining("heartbeat ttl must be at least 300ms");
        assertThatThrownBy(() -> coordis.reliableQueue("q").ack("nonsense"))
                .hasMessageContaining("is not a delivery id");
    }
}
