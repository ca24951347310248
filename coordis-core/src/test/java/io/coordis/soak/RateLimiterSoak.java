package io.coordis.soak;

import io.coordis.ratelimit.SkewedClients;
import io.coordis.ratelimit.SkewedClients.Run;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rate limiter's accuracy over a longer stretch: {@code SkewedClientsIT}'s five client JVMs (clocks an hour
 * ahead, an hour behind, and one stepping from real time to +1 h to −1 h) ask one limiter for ten times its rate for
 * {@code soak.ratelimit.seconds} (default 60). Asserted: the permits granted are at most 1 % above rate × time +
 * burst on Redis's clock (the guarantee) and at least 95 % of it (the limiter does not starve its askers; lower than
 * that only when the machine did not deliver the asks); every clock ended an hour off Redis's, and the stepping one
 * moved two hours during the run.
 * {@code SkewedClientsIT} holds the negative control (a limiter scoring by the client's clock fails the same check).
 * Needs {@code faketime}.
 */
class RateLimiterSoak {

    @Test
    void skewedAndSteppingClientsTogetherGetRateTimesTimePlusBurst() throws Exception {
        int seconds = SoakSettings.rateLimiterSeconds();
        assertThat(SkewedClients.faketime()).as("faketime (Debian package faketime) skews the clients' clocks").isPresent();
        assertThat(SkewedClients.library()).as("the faketime library steps a client's clock").isPresent();
        SoakReport report = new SoakReport("RateLimiterSoak", 0);
        Run run;
        try (RedisServer redis = RedisServer.start()) {
            run = SkewedClients.run(redis, redis.uri(), "coordis", "soak:rate", seconds, SkewedClients.CLOCKS);
        }
        report.figure("limit", SkewedClients.LIMIT + ", asked ten times over by " + run.clocks().size() + " JVMs")
                .figure("window on Redis's clock", String.format(Locale.ROOT, "%.3f s", (run.last() - run.first()) / 1e6))
                .figure("granted", SoakReport.count(run.granted()))
                .figure("rate × time + burst", String.format(Locale.ROOT, "%.1f", run.allowed()))
                .figure("error", String.format(Locale.ROOT, "%+.3f %%", run.errorPercent()))
                .figure("clocks", run.describeClocks())
                .check("granted at most 1 % above rate × time + burst", run.atMostOnePercentOver())
                .check("granted at least 95 % of rate × time + burst", run.errorPercent() >= -5)
                .check("every clock an hour off Redis's at the end; the stepping one moved two hours, the others not",
                        run.clockProblems().isEmpty())
                .note("The seed is unused: the run has no random choices. Below the allowance means the askers "
                        + "left the limiter idle past its burst (a machine too busy to deliver the asks): over a minute "
                        + "on a loaded machine that happens, so the lower bound is looser than SkewedClientsIT's 1 %.")
                .write();
        assertThat(report.failedChecks()).as(run + "; " + run.describeClocks()).isEmpty();
    }
}
