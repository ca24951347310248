package io.coordis.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SameJvmLocksTest {

    @Test
    void ratiosAreFormedPerBlockAfterTheWarmUpBlocks() {
        // block 0 is warm-up and would put the first client at 10x; later blocks slow down together
        double[][] rates = {
                {10_000, 1_000},
                {4_000, 5_000},
                {2_000, 2_000},
                {3_000, 2_000},
        };
        // CPU per cycle: a costs 50, 60, 40 after warm-up; b 100, 40, 50
        double[][] cpu = {
                {900, 10},
                {50, 100},
                {60, 40},
                {40, 50},
        };
        String report = SameJvmLocks.report(List.of("a", "b"), new SameJvmLocks.Measured(rates, cpu), 1, 100, 16);
        assertThat(report).contains("4 blocks of 100 uncontended lock cycles per client and thread, 16 threads"
                + " on keys of their own, first 1 blocks discarded");
        // a's own rates over blocks 1-3: 4000, 2000, 3000
        assertThat(report).contains("a                   3,000 cycles/s [2,000-4,000]  CPU 50.0 us/cycle [40.0-60.0]");
        // per-block ratios 0.8, 1.0, 1.5: the median is 1.0, not 3000 / 2000; CPU ratios 0.5, 1.5, 0.8
        assertThat(report).contains("b                   2,000 cycles/s [2,000-5,000]  CPU 50.0 us/cycle [40.0-100.0]"
                + "   a / this: cycles/s 1.000 [0.800-1.500], CPU/cycle 0.800 [0.500-1.500]");
        assertThat(report).doesNotContain("10.000").doesNotContain("900");
    }

    @Test
    void theSuitesSameJvmScenarioComparesTheFirstClientWithTheSecondInEveryBlock() throws Exception {
        try (SameJvmLoop loop = new SameJvmLoop(List.of(spinning(0), spinning(50_000)), 2)) {
            Map<String, Double> f = loop.run(Duration.ofMillis(200));
            assertThat(f.get("sameJvmRatio")).isGreaterThan(1.5); // the second client spends 50 µs more per cycle
            assertThat(f.get("blocks")).isGreaterThanOrEqualTo(2).matches(b -> b % 2 == 0, "whole rotations");
            assertThat(f.get("ops")).isEqualTo(f.get("blocks") * 2 * SameJvmLoop.CYCLES_PER_BLOCK * 2);
        }
        assertThatThrownBy(() -> new SameJvmLoop(List.of(spinning(0)), 1)).hasMessageContaining("two clients or more");
    }

    /** An in-JVM lock client whose every cycle spins {@code nanos} (one key per thread: nothing to exclude). */
    private static Locking spinning(long nanos) {
        return new Locking() {
            @Override
            public Object tryLock(String name) {
                long until = System.nanoTime() + nanos;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                return name;
            }

            @Override
            public Object lock(String name) {
                return tryLock(name);
            }

            @Override
            public void unlock(Object handle) {
            }

            @Override
            public void close() {
            }
        };
    }
}
