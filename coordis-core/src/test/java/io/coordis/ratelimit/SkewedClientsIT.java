package io.coordis.ratelimit;

import io.coordis.ratelimit.SkewedClients.Run;
import io.coordis.testkit.ContinuousIntegration;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Five JVMs asking one limiter for ten times its rate, two with clocks an hour ahead, two an hour behind and one whose
 * clock steps from real time to an hour ahead to an hour behind during the run ({@code faketime}, see
 * {@link SkewedClients}): the limiter grants rate × time + burst within 1 %, since it only reads Redis's clock. The
 * negative control, a limiter that scores grants by the client's clock, fails the same check under the same clocks.
 * Every run also checks that the clocks really were where they were set, and that the stepping one stepped. Without
 * {@code faketime} the test is skipped, except in CI, where it fails.
 */
class SkewedClientsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @BeforeAll
    static void needsFaketime() {
        boolean present = SkewedClients.faketime().isPresent() && SkewedClients.library().isPresent();
        if (!present && ContinuousIntegration.running()) {
            fail("faketime is not installed: CI must install it (Debian package faketime) to skew clients' clocks");
        }
        Assumptions.assumeTrue(present, "faketime is not installed (Debian package faketime): cannot skew clocks");
    }

    @Test
    @Timeout(90)
    void skewedClientsTogetherGetRateTimesTimePlusBurst() throws Exception {
        Run run = SkewedClients.run(redis.server(), redis.uri(), "coordis", "rl:skewed", 20, SkewedClients.CLOCKS);
        System.out.println("SkewedClientsIT: Redis's clock: " + run);
        assertClocks(run);
        assertThat(run.withinOnePercent()).as(run.toString()).isTrue();
    }

    @Test
    @Timeout(90)
    void aLimiterScoringByTheClientsClockFailsTheSameCheck() throws Exception {
        Run run = SkewedClients.run(redis.server(), redis.uri(), "client-clock", "rl:control", 6, SkewedClients.CLOCKS);
        System.out.println("SkewedClientsIT: the clients' clocks: " + run);
        assertClocks(run);
        assertThat(run.withinOnePercent()).as(run.toString()).isFalse();
    }

    /** Every clock ended an hour off Redis's; the stepping one moved two hours during the run, the others did not. */
    private static void assertClocks(Run run) {
        assertThat(run.clockProblems()).as(run.describeClocks()).isEmpty();
    }
}
