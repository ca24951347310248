package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Queues shared with redis-py on the layout the README gives other languages (a plain list: producers
 * {@code LPUSH}, FIFO consumers take from the right): Python producers feed a Coordis reliable consumer, and Coordis
 * producers (reliable and plain) feed two Python {@code BRPOP} consumers that take half each. Nothing is lost or doubled, and a consumer
 * sees each producer's messages in the order they were pushed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ForeignQueueIT {
    private static final int PER_PRODUCER = 200;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private Map<String, String> login;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        login = ForeignClient.login(redis.servers());
        ForeignClient.requirePython();
    }

    @AfterEach
    void close() {
        coordis.close();
    }

    @Test
    void pythonProducersFeedACoordisReliableConsumerInOrder() throws Exception {
        String name = "interop:from-python";
        ReliableQueue jobs = coordis.reliableQueue(name);
        List<String> received = new ArrayList<>();
        try (Consumer consumer = jobs.consumer();
             ForeignClient one = push(name, "py1", 1);
             ForeignClient batches = push(name, "py2", 10)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (received.size() < 2 * PER_PRODUCER && System.nanoTime() < deadline) {
                List<Delivery> taken = consumer.take(16, Duration.ofMillis(500));
                for (Delivery d : taken) {
                    received.add(d.text());
                }
                assertThat(consumer.ack(taken)).containsOnly(Outcome.ACKED);
            }
            assertThat(one.done()).containsEntry("pushed", (long) PER_PRODUCER);
            assertThat(batches.done()).containsEntry("pushed", (long) PER_PRODUCER);
        }
        System.out.printf("interop queue python->coordis: %d received of %d%n", received.size(), 2 * PER_PRODUCER);
        assertEveryMessageOnceInProducerOrder(List.of(received), List.of("py1", "py2"));
        QueueStats stats = jobs.stats();
        assertThat(stats.depth()).isZero();
        assertThat(stats.inFlight()).isZero();
    }

    @Test
    void coordisProducersFeedPythonConsumersInOrder() throws Exception {
        String name = "interop:from-coordis";
        ReliableQueue reliable = coordis.reliableQueue(name);
        Queue plain = coordis.queue(name);
        CompletableFuture<Void> singly = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < PER_PRODUCER; i++) {
                    reliable.push("reliable-" + i);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture<Void> batched = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < PER_PRODUCER; i += 10) {
                    List<byte[]> batch = new ArrayList<>();
                    for (int j = i; j < i + 10; j++) {
                        batch.add(("plain-" + j).getBytes(StandardCharsets.UTF_8));
                    }
                    plain.pushAll(batch);
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        List<List<String>> perConsumer = new ArrayList<>();
        try (ForeignClient first = consume(name); ForeignClient second = consume(name)) {
            singly.get(30, TimeUnit.SECONDS);
            batched.get(30, TimeUnit.SECONDS);
            for (ForeignClient consumer : List.of(first, second)) {
                List<String> got = new ArrayList<>();
                for (Object o : TestJson.list(consumer.done().get("received"))) {
                    got.add((String) o);
                }
                perConsumer.add(got);
            }
        }
        System.out.printf("interop queue coordis->python: %d + %d received of %d%n", perConsumer.get(0).size(),
                perConsumer.get(1).size(), 2 * PER_PRODUCER);
        assertEveryMessageOnceInProducerOrder(perConsumer, List.of("reliable", "plain"));
        assertThat(plain.depth()).isZero();
    }

    private ForeignClient push(String name, String producer, int batch) {
        return ForeignClient.python(login, "push", "--redis", redis.server().address(), "--queue", Prefixed.key(name),
                "--count", Integer.toString(PER_PRODUCER), "--producer", producer, "--batch", Integer.toString(batch));
    }

    private ForeignClient consume(String name) {
        return ForeignClient.python(login, "consume", "--redis", redis.server().address(), "--queue",
                Prefixed.key(name), "--expect", Integer.toString(PER_PRODUCER), "--idle-ms", "2000");
    }

    /**
     * Every producer's messages {@code producer-0 … producer-(PER_PRODUCER-1)} arrived exactly once over all
     * consumers, and each consumer saw each producer's messages in rising order.
     */
    private static void assertEveryMessageOnceInProducerOrder(List<List<String>> perConsumer, List<String> producers) {
        Set<String> seen = new HashSet<>();
        List<String> duplicates = new ArrayList<>();
        for (List<String> consumer : perConsumer) {
            Map<String, Integer> last = new LinkedHashMap<>();
            for (String message : consumer) {
                if (!seen.add(message)) {
                    duplicates.add(message);
                }
                int dash = message.lastIndexOf('-');
                String producer = message.substring(0, dash);
                int n = Integer.parseInt(message.substring(dash + 1));
                Integer before = last.put(producer, n);
                assertThat(n).as("%s after %s-%s", message, producer, before).isGreaterThan(before == null ? -1 : before);
            }
        }
        Set<String> expected = new HashSet<>();
        for (String producer : producers) {
            for (int i = 0; i < PER_PRODUCER; i++) {
                expected.add(producer + "-" + i);
            }
        }
        Set<String> lost = new HashSet<>(expected);
        lost.removeAll(seen);
        assertThat(duplicates).as("delivered twice").isEmpty();
        assertThat(lost).as("lost").isEmpty();
        assertThat(seen).isEqualTo(expected);
    }
}
