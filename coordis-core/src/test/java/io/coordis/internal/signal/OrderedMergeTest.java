package io.coordis.internal.signal;

import io.coordis.ManualTicker;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class OrderedMergeTest {
    private final ManualTicker ticker = new ManualTicker();

    @Test
    void copiesFromOtherNodesAreDropped() {
        OrderedMerge m = new OrderedMerge(3, ticker);
        assertThat(m.accept(0, "c", "1")).isTrue();
        assertThat(m.accept(1, "c", "1")).isFalse();
        assertThat(m.accept(1, "c", "2")).isTrue();
        assertThat(m.accept(0, "c", "2")).isFalse();
        assertThat(m.accept(2, "c", "1")).isFalse();
        assertThat(m.accept(2, "c", "2")).isFalse();
    }

    @Test
    void identicalMessagesAreToldApartByOrder() {
        OrderedMerge m = new OrderedMerge(2, ticker);
        assertThat(m.accept(0, "c", "x")).isTrue();
        assertThat(m.accept(1, "c", "x")).isFalse();
        assertThat(m.accept(1, "c", "x")).isTrue();
        assertThat(m.accept(0, "c", "x")).isFalse();
        assertThat(m.accept(0, "c", "x")).isTrue();
        assertThat(m.accept(1, "c", "x")).isFalse();
    }

    @Test
    void aNodeThatSubscribedLateSkipsWhatItNeverSaw() {
        OrderedMerge m = new OrderedMerge(2, ticker);
        m.accept(0, "c", "1");
        m.accept(0, "c", "2");
        assertThat(m.accept(1, "c", "2")).isFalse();
        assertThat(m.accept(1, "c", "3")).isTrue();
        assertThat(m.accept(0, "c", "3")).isFalse();
    }

    @Test
    void channelIsPartOfTheIdentity() {
        OrderedMerge m = new OrderedMerge(2, ticker);
        assertThat(m.accept(0, "a", "1")).isTrue();
        assertThat(m.accept(1, "a", "1")).isFalse();
        assertThat(m.accept(1, "b", "1")).isTrue();
        assertThat(m.accept(0, "b", "1")).isFalse();
    }

    @Test
    void afterAGapANodeIsMatchedOnlyAgainstRecentMessages() {
        OrderedMerge m = new OrderedMerge(2, ticker);
        m.accept(0, "c", "old");
        m.accept(1, "c", "old");
        ticker.advance(Duration.ofSeconds(10));
        m.accept(0, "c", "recent");
        m.gap(1);
        // a copy of a recent message is recognised, an old text published again is new
        assertThat(m.accept(1, "c", "recent")).isFalse();
        assertThat(m.accept(1, "c", "old")).isTrue();
    }

    @Test
    void retentionIsBounded() {
        OrderedMerge m = new OrderedMerge(2, ticker);
        for (int i = 0; i < 5 * OrderedMerge.RETAINED; i++) {
            m.accept(0, "c", Integer.toString(i));
        }
        assertThat(m.retained()).isLessThanOrEqualTo(2 * OrderedMerge.RETAINED);
        assertThat(m.accept(1, "c", Integer.toString(5 * OrderedMerge.RETAINED - 1))).isFalse();
    }
}
