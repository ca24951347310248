package io.coordis.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ResultsTest {

    @Test
    void medianOfOddAndEvenCountsAndTheRange() {
        assertThat(Summary.of(3, 1, 2)).isEqualTo(new Summary(2, 1, 3, 3));
        assertThat(Summary.of(4, 1, 3, 2)).isEqualTo(new Summary(2.5, 1, 4, 4));
        assertThat(Summary.of(Double.NaN, 5, Double.NaN)).isEqualTo(new Summary(5, 5, 5, 1));
        assertThat(Summary.of(Double.NaN).isEmpty()).isTrue();
    }

    @Test
    void ratiosAreFormedWithinEachRoundNotFromTwoMedians() {
        Results results = new Results(3);
        // A machine that slows down a lot in round 2: both sides drop, the ratio stays 2.
        double[] coordis = {1000, 200, 900};
        double[] redisson = {500, 100, 450};
        for (int r = 0; r < 3; r++) {
            results.add("s", "coordis", r, Map.of("opsPerSec", coordis[r]));
            results.add("s", "redisson", r, Map.of("opsPerSec", redisson[r]));
        }
        Summary ratio = results.ratio("s", "redisson", "opsPerSec");
        assertThat(ratio.median()).isCloseTo(2.0, within(1e-9));
        assertThat(ratio.min()).isCloseTo(2.0, within(1e-9));
        assertThat(ratio.max()).isCloseTo(2.0, within(1e-9));
        // the quotient of medians would differ if rounds were paired wrongly: 900/450 = 2 but 900/100 = 9
        assertThat(Summary.quotients(new double[]{1, 2}, new double[]{Double.NaN, 0})).containsOnly(Double.NaN);
    }

    @Test
    void aRoundMissingOnOneSideIsLeftOutOfTheRatio() {
        Results results = new Results(3);
        results.add("s", "coordis", 0, Map.of("opsPerSec", 300.0));
        results.add("s", "coordis", 1, Map.of("opsPerSec", 10_000.0));
        results.add("s", "coordis", 2, Map.of("opsPerSec", 400.0));
        results.add("s", "lettuce", 0, Map.of("opsPerSec", 100.0));
        results.add("s", "lettuce", 2, Map.of("opsPerSec", 100.0));
        Summary ratio = results.ratio("s", "lettuce", "opsPerSec");
        assertThat(ratio.count()).isEqualTo(2);
        assertThat(ratio.median()).isCloseTo(3.5, within(1e-9));
        assertThat(ratio.max()).isCloseTo(4.0, within(1e-9));
    }

    @Test
    void targetsAreCheckedAgainstTheMedianInTheRightDirection() {
        Scenario lock = scenario("lock", List.of(
                Target.ratio("≥ 1.6 × Redisson", "opsPerSec", "redisson", true, 1.6),
                Target.absolute("p99 ≤ 1 ms", "acquireP99Us", false, 1000),
                Target.spread("no starving", "threadMinOps", "threadMaxOps", true, 0.5)));
        Scenario signal = scenario("signal", List.of(Target.ratio("p50 ≤ 0.75 × Redisson", "p50Us", "redisson", false, 0.75)));
        Scenario grown = scenario("grown", List.of(Target.growth("flat", "opsPerSec", "lock", true, 0.9)));
        Results results = new Results(1);
        results.add("lock", "coordis", 0, Map.of("opsPerSec", 170.0, "acquireP99Us", 1200.0, "threadMinOps", 40.0,
                "threadMaxOps", 100.0));
        results.add("lock", "redisson", 0, Map.of("opsPerSec", 100.0));
        results.add("signal", "coordis", 0, Map.of("p50Us", 70.0));
        results.add("signal", "redisson", 0, Map.of("p50Us", 100.0));
        results.add("grown", "coordis", 0, Map.of("opsPerSec", 160.0));

        assertThat(met(results, lock, 0)).isTrue();     // 1.7 ≥ 1.6
        assertThat(met(results, lock, 1)).isFalse();    // 1200 µs > 1000 µs
        assertThat(met(results, lock, 2)).isFalse();    // 0.4 < 0.5
        assertThat(met(results, signal, 0)).isTrue();   // 0.70 ≤ 0.75
        assertThat(results.check(grown, grown.targets().get(0)).median()).isCloseTo(160 / 170.0, within(1e-9));
        assertThat(met(results, grown, 0)).isTrue();    // 0.94 ≥ 0.9
        assertThat(Target.ratio("x", "m", "a", true, 1).met(Double.NaN)).isFalse();
    }

    @Test
    void aGrowthIsComparedWithTheAnchorsGrowthInTheSameRound() {
        Scenario three = scenario("three", List.of());
        Scenario seven = scenario("seven", List.of(
                Target.growthRatio("p50 growth ≤ 1.15 × raw's", "acquireP50Us", "three", "raw", false, 1.15)));
        Results results = new Results(2);
        // round 1: Coordis grows 100 → 130 (1.3), raw 100 → 120 (1.2); round 2 on a slower machine, same growths
        results.add("three", "coordis", 0, Map.of("acquireP50Us", 100.0));
        results.add("three", "raw", 0, Map.of("acquireP50Us", 100.0));
        results.add("seven", "coordis", 0, Map.of("acquireP50Us", 130.0));
        results.add("seven", "raw", 0, Map.of("acquireP50Us", 120.0));
        results.add("three", "coordis", 1, Map.of("acquireP50Us", 200.0));
        results.add("three", "raw", 1, Map.of("acquireP50Us", 300.0));
        results.add("seven", "coordis", 1, Map.of("acquireP50Us", 260.0));
        results.add("seven", "raw", 1, Map.of("acquireP50Us", 360.0));
        Summary v = results.check(seven, seven.targets().get(0));
        assertThat(v.median()).isCloseTo(1.3 / 1.2, within(1e-9));
        assertThat(v.max()).isCloseTo(1.3 / 1.2, within(1e-9));
        assertThat(met(results, seven, 0)).isTrue();
        assertThat(three.targets()).isEmpty();
    }

    @Test
    void theReportLeadsWithRatiosAndMarksMissedTargets() {
        Scenario lock = scenario("lock", List.of(Target.ratio("≥ 1.6 × Redisson", "opsPerSec", "redisson", true, 1.6)));
        Results results = new Results(2);
        for (int r = 0; r < 2; r++) {
            results.add("lock", "coordis", r, Map.of("opsPerSec", 150.0 + r, "ops", 1.0));
            results.add("lock", "redisson", r, Map.of("opsPerSec", 100.0, "ops", 1.0));
        }
        Options options = Options.parse("--rounds", "2", "--note", "Smoke run");
        String md = new Report(options, Map.of("Redis", "7.0"), List.of(lock), results, "b-raw.jsonl").render();
        assertThat(md).contains("> **Smoke run**")
                .contains("| lock | ≥ 1.6 × Redisson | 1.51× [1.50–1.51] | **missed** |")
                .contains("| redisson | 1.51× [1.50–1.51] | 100 [100–100] |");
    }

    private static boolean met(Results results, Scenario s, int target) {
        Target t = s.targets().get(target);
        return t.met(results.check(s, t).median());
    }

    private static Scenario scenario(String id, List<Target> targets) {
        return new Scenario(id, id, null, null, 1, false, List.of("coordis", "redisson"), "opsPerSec", true, targets,
                (impl, uris) -> {
                    throw new UnsupportedOperationException();
                });
    }
}
