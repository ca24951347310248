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
        String report = SameJvmLocks.report(List.of("a", "b"), rates, 1, 100);
        assertThat(report).contains("4 blocks of 100 uncontended lock cycles per client, first 1 discarded");
        // a's own rates over blocks 1-3: 4000, 2000, 3000
        assertThat(report).contains("a                   3,000 cycles/s [2,000-4,000]");
        // per-block ratios 0.8, 1.0, 1.5: the median is 1.0, not 3000 / 2000
        assertThat(report).contains("b                   2,000 cycles/s [2,000-5,000]   a / this 1.000 [0.800-1.500]");
        assertThat(report).doesNotContain("10.000");
    }
}
