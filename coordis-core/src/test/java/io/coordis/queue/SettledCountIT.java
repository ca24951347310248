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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The settled count {@code {q}:settled}: it rises by exactly the messages finished with (acked one by one, in a
 * batch, with the next take, dead-lettered by a nack or by a sweep) and not when a message goes back (nack with
 * or without a delay, a sweep's requeue, a consumer's close, an operator's requeue of dead letters).
 */
class SettledCountIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final String NAME = "counted";
    private static final QueueOptions FAST = QueueOptions.defaults().withMaxAttempts(2).withSlots(8)
            .withHeartbeatTtl(Duration.ofMillis(600)).withSweepInterval(Duration.ofMillis(100));

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

    /** The counter as another language's client reads it. */
    private long settled() {
        Object value = foreign.command("GET", Prefixed.derived(NAME, "settled"));
        return value == null ? 0 : Long.parseLong((String) value);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void risesByTheMessagesFinishedWithAndNotByThoseThatGoBack() throws Exception {
        ReliableQueue q = coordis.reliableQueue(NAME, FAST);
        q.pushAll(List.of("a".getBytes(), "b".getBytes(), "c".getBytes(), "d".getBytes(), "e".getBytes(),
                "f".getBytes()));
        assertThat(settled()).as("pushed, nothing settled").isZero();
        try (Consumer c = q.consumer()) {
            Delivery a = c.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(a.ack()).isEqualTo(Outcome.ACKED);
            assertThat(settled()).as("one ack").isEqualTo(1);
            assertThat(q.ack(a.id())).as("retried, by id").isEqualTo(Outcome.ALREADY_SETTLED);
            assertThat(settled()).as("a retried ack counts once").isEqualTo(1);

            List<Delivery> three = c.take(3, Duration.ofSeconds(1));
            assertThat(three).extracting(Delivery::text).containsExactly("b", "c", "d");
            assertThat(c.ack(three)).containsOnly(Outcome.ACKED);
            assertThat(settled()).as("a batch ack of three").isEqualTo(4);

            Delivery e = c.take(Duration.ofSeconds(1)).orElseThrow();
            Delivery f = e.ackAndTake(Duration.ZERO).orElseThrow();
            assertThat(f.text()).isEqualTo("f");
            assertThat(settled()).as("ack and take the next").isEqualTo(5);

            assertThat(f.nack()).isEqualTo(Outcome.REQUEUED);
            assertThat(settled()).as("a nack that retries").isEqualTo(5);
            Delivery again = c.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(again.attempts()).isEqualTo(2);
            assertThat(again.nack()).isEqualTo(Outcome.DEAD_LETTERED);
            assertThat(settled()).as("a nack at the limit dead-letters").isEqualTo(6);

            assertThat(q.requeueDead(10)).isEqualTo(1);
            assertThat(settled()).as("an operator's requeue of dead letters").isEqualTo(6);

            Delivery held = c.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(held.text()).isEqualTo("f");
        }
        assertThat(settled()).as("a consumer closing puts its message back").isEqualTo(6);

        dieHolding("f", 1); // the sweep counts a failed delivery and requeues
        assertThat(q.stats().deadLetters()).isZero();
        assertThat(settled()).as("a sweep that requeues").isEqualTo(6);
        dieHolding("f", 2); // the second failure reaches the limit: the sweep dead-letters
        await().atMost(Duration.ofSeconds(5)).until(() -> q.stats().deadLetters() == 1);
        assertThat(settled()).as("a sweep that dead-letters").isEqualTo(7);

        q.push("g");
        try (Consumer c = q.consumer()) {
            Delivery g = c.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(g.nack(Duration.ofMillis(50))).isEqualTo(Outcome.DELAYED);
            assertThat(settled()).as("a nack with a delay").isEqualTo(7);
            Delivery later = c.take(Duration.ofSeconds(5)).orElseThrow();
            assertThat(later.text()).isEqualTo("g");
            assertThat(q.ack(later.id())).as("by id").isEqualTo(Outcome.ACKED);
        }
        assertThat(settled()).isEqualTo(8);
        assertThat(q.stats().settled()).as("stats").isEqualTo(8);
        assertThat(coordis.inspector().queue(Prefixed.key(NAME)).orElseThrow().settled()).as("inspector")
                .isEqualTo(8);
    }

    /**
     * A consumer of its own connection takes {@code payload} as its {@code attempt}-th delivery and dies holding it
     * (its connection closes, nothing released, as after kill -9); returns once a sweep has moved the message out
     * of its slot.
     */
    private void dieHolding(String payload, int attempt) throws InterruptedException {
        Coordis dying = TestClients.connect(redis.uri());
        Consumer doomed = dying.reliableQueue(NAME, FAST).consumer();
        Delivery d = doomed.take(Duration.ofSeconds(1)).orElseThrow();
        assertThat(d.text()).isEqualTo(payload);
        assertThat(d.attempts()).isEqualTo(attempt);
        dying.close();
        ReliableQueue q = coordis.reliableQueue(NAME, FAST);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> q.sweep() >= 0 && q.stats().inFlight() == 0);
    }
}
