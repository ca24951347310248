package io.coordis.internal.election;

import io.coordis.election.ElectionOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ElectionOptionsTest {

    @Test
    void defaults() {
        ElectionOptions o = ElectionOptions.defaults();
        assertThat(o.ttl()).isEqualTo(Duration.ofSeconds(15));
        assertThat(o.renewInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.keyPrefix()).isEmpty();
        assertThat(o.candidateId()).matches(".+@.+:\\d+:[0-9a-f]{6}");
    }

    @Test
    void validityIsTheTtlMinusDrift() {
        ElectionOptions o = ElectionOptions.defaults().withTtl(Duration.ofSeconds(10));
        assertThat(o.validityNanos()).isEqualTo(Duration.ofSeconds(10).minusMillis(100).minusMillis(2).toNanos());
        assertThat(o.withClockDriftFactor(0).validityNanos()).isEqualTo(Duration.ofSeconds(10).minusMillis(2).toNanos());
    }

    @Test
    void badValuesAreNamedWithWhatToDo() {
        ElectionOptions o = ElectionOptions.defaults();
        assertThatThrownBy(() -> o.withTtl(Duration.ofMillis(299))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("election ttl must be at least 300ms, was 299ms");
        assertThatThrownBy(() -> o.withTtl(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> o.withCandidateId(" ")).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> o.withCandidateId("web 1")).hasMessageContaining("must not contain blanks")
                .hasMessageContaining("web 1");
        assertThatThrownBy(() -> o.withClockDriftFactor(0.5)).hasMessageContaining("below 0.3, was 0.5");
        assertThat(o.withCandidateId("web-1").withKeyPrefix("app:").toString())
                .contains("candidateId=web-1", "keyPrefix='app:'", "ttl=15s");
    }

    @Test
    void theTtlIsBoundedAboveAtThirtyDaysSoThatNanosecondDeadlinesNeverOverflow() {
        ElectionOptions o = ElectionOptions.defaults();
        assertThat(ElectionOptions.MAX_TTL).isEqualTo(Duration.ofDays(30));
        ElectionOptions longest = o.withTtl(ElectionOptions.MAX_TTL);
        assertThat(longest.ttl()).isEqualTo(Duration.ofDays(30));
        assertThat(longest.validityNanos()).as("exact at the bound").isEqualTo(Duration.ofDays(30).toNanos()
                - Duration.ofDays(30).toNanos() / 100 - 2_000_000L);
        assertThatThrownBy(() -> o.withTtl(ElectionOptions.MAX_TTL.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("election ttl must be at most 30d, was 2592000.001s");
        assertThatThrownBy(() -> o.withTtl(Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessage("election ttl must be at most 30d, was " + Long.MAX_VALUE + "s");
    }

    @Test
    void termHistoryFlagsLowerTermsAndSharedTermsOnce() {
        TermHistory h = new TermHistory();
        assertThat(h.record("a", 3).regressed()).isFalse();
        assertThat(h.record("a", 3).regressed()).as("the same leadership again").isFalse();
        assertThat(h.highest()).isEqualTo(3);
        TermHistory.Seen lower = h.record("b", 1);
        assertThat(lower.regressed()).isTrue();
        assertThat(lower.highestBefore()).isEqualTo(3);
        assertThat(lower.firstReport()).isTrue();
        assertThat(h.record("b", 1).firstReport()).as("reported once").isFalse();
        assertThat(h.record("c", 3).regressed()).as("term 3 under another id").isTrue();
        assertThat(h.record("c", 4).regressed()).isFalse();
        h.elected("a", 9);
        assertThat(h.highest()).isEqualTo(9);
    }
}
