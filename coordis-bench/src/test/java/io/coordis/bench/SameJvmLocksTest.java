package io.coordis.bench;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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
}
