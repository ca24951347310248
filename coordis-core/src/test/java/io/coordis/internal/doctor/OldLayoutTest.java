package io.coordis.internal.doctor;

import io.coordis.doctor.Finding;
import io.coordis.internal.Keys;
import io.coordis.internal.redis.Namespace;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** Which keys the old-layout walk takes for leftovers, and how its finding reads; no Redis. */
class OldLayoutTest {

    @Test
    void derivedKeysOfTheOldSuffixesAreCandidatesWithTheKeyTheyBelongTo() {
        assertThat(OldLayout.candidate("{orders}:fence", Namespace.NONE)).contains(new OldLayout.Leftover("{orders}:fence", "orders", "fence"));
        assertThat(OldLayout.candidate("a{b}c:holder", Namespace.NONE)).contains(new OldLayout.Leftover("a{b}c:holder", "a{b}c", "holder"));
        assertThat(OldLayout.candidate("{pool}:waiters-until", Namespace.NONE)).map(OldLayout.Leftover::suffix).contains("waiters-until");
        assertThat(OldLayout.candidate("{rw}:readers:details", Namespace.NONE)).map(OldLayout.Leftover::owner).contains("rw");
        assertThat(OldLayout.candidate("{reports}:term", Namespace.NONE)).map(OldLayout.Leftover::rule).contains("counter");
        assertThat(OldLayout.candidate("{orders}:holder", Namespace.NONE)).map(OldLayout.Leftover::rule).contains("holder");
        assertThat(OldLayout.candidate("{pool}:permits", Namespace.NONE)).map(OldLayout.Leftover::rule).contains("idle");
    }

    @Test
    void everySuffixItLooksForIsOneCoordisDerivesAndNoneIsAQueues() {
        assertThat(Keys.reservedSuffixes()).containsAll(OldLayout.COUNTERS).containsAll(OldLayout.STATE);
        assertThat(OldLayout.STATE).doesNotContain("consumers", "attempts", "dead", "delayed", "delayed:data",
                "enqueued", "settled", "audit", "event");
    }

    @Test
    void theSharedCountersQueueKeysAndPlainKeysAreNot() {
        assertThat(OldLayout.candidate("{jobs}:dead", Namespace.NONE)).isEmpty();
        assertThat(OldLayout.candidate("{jobs}:settled", Namespace.NONE)).isEmpty();
        assertThat(OldLayout.candidate("{orders}:audit", Namespace.NONE)).isEmpty();
        assertThat(OldLayout.candidate("orders:fence", Namespace.NONE)).as("no hash tag: not derived").isEmpty();
        assertThat(OldLayout.candidate("fence", Namespace.NONE)).isEmpty();
    }

    @Test
    void aKeyPrefixKeepsOnlyTheNamesUnderIt() {
        assertThat(OldLayout.candidate("{app:orders}:fence", Namespace.of("app:"))).map(OldLayout.Leftover::owner).contains("app:orders");
        assertThat(OldLayout.candidate("app:a{b}:holder", Namespace.of("app:"))).map(OldLayout.Leftover::owner).contains("app:a{b}");
        assertThat(OldLayout.candidate("{other:orders}:fence", Namespace.of("app:"))).isEmpty();
        assertThat(OldLayout.candidate("{app:}:fence", Namespace.of("app:"))).as("the prefix alone names nothing").isEmpty();
        assertThat(OldLayout.patterns(Namespace.NONE)).containsExactly("*");
        assertThat(OldLayout.patterns(Namespace.of("t[1]*:"))).containsExactly("{t\\[1\\]\\*:*", "t\\[1\\]\\*:*");
    }

    @Test
    void theFindingCountsPerSuffixAndSaysTheMemoryIsExtrapolated() {
        Finding none = OldLayout.finding("h:1", new OldLayout.Tally(Map.of(), 0, 0, Optional.empty()));
        assertThat(none.severity()).isEqualTo(Finding.Severity.OK);

        Finding some = OldLayout.finding("h:1", new OldLayout.Tally(new TreeMap<>(Map.of("fence", 20_000L,
                "holder", 19_999L)), 200, 200 * 150, Optional.empty()));
        assertThat(some.severity()).isEqualTo(Finding.Severity.WARN);
        assertThat(some.message()).isEqualTo("39,999 keys of the old per-name layout never expire (20,000 {name}:fence, "
                + "19,999 {name}:holder); about 5.7 MB (MEMORY USAGE of 200 sampled keys, extrapolated)");
        assertThat(some.fix()).contains("coordis doctor --remove-old-layout", "start above them");

        Finding refused = OldLayout.finding("h:1", new OldLayout.Tally(Map.of("term", 1L), 0, 0,
                Optional.of("NOPERM")));
        assertThat(refused.message()).isEqualTo("1 key of the old per-name layout never expires (1 {name}:term); "
                + "memory not measured (MEMORY USAGE: NOPERM)");
    }
}
