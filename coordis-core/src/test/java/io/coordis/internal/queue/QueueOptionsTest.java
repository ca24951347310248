package io.coordis.internal.queue;

import io.coordis.queue.Order;
import io.coordis.queue.QueueOptions;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QueueOptionsTest {
    @Test
    void defaultsAndChangedCopies() {
        QueueOptions d = QueueOptions.defaults();
        assertThat(d.order()).isEqualTo(Order.FIFO);
        assertThat(d.maxAttempts()).isEqualTo(5);
        assertThat(d.slots()).isEqualTo(16);
        QueueOptions changed = d.withOrder(Order.LIFO).withSlots(4).withHeartbeatTtl(Duration.ofSeconds(3));
        assertThat(changed.order()).isEqualTo(Order.LIFO);
        assertThat(changed.slots()).isEqualTo(4);
        assertThat(d.slots()).as("immutable").isEqualTo(16);
    }

    @Test
    void badValuesNameTheValueAndTheLimit() {
        assertThatThrownBy(() -> QueueOptions.defaults().withSlots(0)).hasMessage("slots must be between 1 and 1024, was 0");
        assertThatThrownBy(() -> QueueOptions.defaults().withMaxMessageBytes(0)).hasMessageContaining("was 0");
        assertThatThrownBy(() -> QueueOptions.defaults().withSweepInterval(Duration.ofMillis(1)))
                .hasMessageContaining("sweep interval must be at least 50ms");
    }

    @Test
    void heartbeatTtlAndSweepIntervalAreBoundedAboveAtThirtyDays() {
        QueueOptions d = QueueOptions.defaults();
        assertThat(QueueOptions.MAX_INTERVAL).isEqualTo(Duration.ofDays(30));
        assertThat(d.withHeartbeatTtl(Duration.ofDays(30)).heartbeatTtl()).isEqualTo(Duration.ofDays(30));
        assertThat(d.withSweepInterval(Duration.ofDays(30)).sweepInterval()).isEqualTo(Duration.ofDays(30));
        assertThatThrownBy(() -> d.withHeartbeatTtl(Duration.ofDays(30).plusSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("heartbeat ttl must be at most 30d, was 2592001s");
        assertThatThrownBy(() -> d.withSweepInterval(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sweep interval must be at most 30d, was " + Long.MAX_VALUE + "s");
    }

    @Test
    void deliveryIdsRoundTripAndNonsenseIsRefused() {
        DeliveryRef ref = DeliveryRef.parse("3f9a0c21b7d4/3/17");
        assertThat(ref).isEqualTo(new DeliveryRef("3f9a0c21b7d4", 3, 17));
        assertThat(ref.toString()).isEqualTo("3f9a0c21b7d4/3/17");
        assertThatThrownBy(() -> DeliveryRef.parse("3f9a0c21b7d4/3/0")).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> DeliveryRef.parse("{q}:proc/1/2")).hasMessageContaining("not a delivery id");
        assertThatThrownBy(() -> DeliveryRef.parse(null)).hasMessageContaining("not a delivery id");
    }

    @Test
    void oversizedPayloadInABatchIsNamedByIndex() {
        List<byte[]> batch = List.of("ok".getBytes(StandardCharsets.UTF_8), "too long".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> Payloads.checked(batch, 4, "q"))
                .hasMessage("message 1 for queue 'q' is 8 bytes, over the maximum of 4 "
                        + "(QueueOptions.withMaxMessageBytes); nothing was pushed");
    }

    @Test
    void sha1MatchesRedisSha1hexFormat() {
        assertThat(SlotQueue.sha1("abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("a9993e364706816aba3e25717850c26c9cd0d89d");
    }

    @Test
    void everyKeyOfAQueueIsInItsClusterSlot() {
        QueueKeys plain = new QueueKeys("jobs");
        QueueKeys tagged = new QueueKeys("tenant{7}:jobs");
        for (String k : List.of(plain.registry, plain.attempts, plain.dead, plain.delayed, plain.delayedData,
                plain.enqueued, plain.heartbeat("c1"), plain.slot("c1", 3), plain.settled("c1"))) {
            assertThat(k).startsWith("{jobs}:");
        }
        assertThat(plain.queue).as("the list itself is named exactly as given").isEqualTo("jobs");
        for (String k : List.of(tagged.registry, tagged.dead, tagged.slot("c1", 0), tagged.heartbeat("c1"))) {
            assertThat(k).startsWith("tenant{7}:jobs:");
        }
    }

    @Test
    void registrationParsesAndToleratesGarbage() {
        assertThat(QueueLayout.registration("8 1700000000000 1000 63000"))
                .contains(new QueueLayout.Registration(8, 1700000000000L, 1000, 63000));
        assertThat(QueueLayout.registration("garbage")).isEmpty();
        assertThat(QueueLayout.registration("8 1700000000000 x 63000")).isEmpty();
        assertThat(QueueLayout.registration(null)).isEmpty();
    }
}
