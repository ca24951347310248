package io.coordis.election;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Five candidates in separate JVMs for two minutes: the first leader stays leader the whole time (one
 * leadership change, the first election), even though its network to Redis goes silent now and then
 * for less than TTL − renewal interval.
 */
class StableLeadershipIT {
    private static final Duration TTL = Duration.ofSeconds(6);
    /** Shorter than TTL − TTL/3 = 4 s, with room for a renewal that timed out just before it ended. */
    private static final Duration BLIP = Duration.ofMillis(2500);
    private static final Duration RUN = Duration.ofSeconds(120);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void fiveCandidatesKeepTheirFirstLeaderThroughShortNetworkBlips() throws Exception {
        try (FencedResource referee = FencedResource.recording();
             FaultProxy proxy = FaultProxy.to(redis.server());
             Candidates candidates = new Candidates(referee, "lease", "el:stable", TTL)) {
            String first = candidates.start(proxy.uri());
            FencedResource.Event elected = referee.await(0, "ENTER", first, Duration.ofMillis(10_000))
                    .orElseThrow(() -> new AssertionError("first candidate not elected; " + candidates.describe()));
            for (int i = 0; i < 4; i++) {
                candidates.start(redis.uri());
            }
            long end = System.nanoTime() + RUN.toNanos();
            int blips = 0;
            while (System.nanoTime() < end) {
                Thread.sleep(5_000 + (blips * 1_234) % 5_000);
                proxy.blackhole();
                Thread.sleep(BLIP.toMillis());
                proxy.pass();
                blips++;
            }
            Thread.sleep(TTL.toMillis()); // anything the last blip broke would show by now
            assertThat(referee.events("ENTER")).as(candidates.describe()).containsExactly(elected);
            assertThat(referee.events("EXIT")).isEmpty();
            assertThat(referee.events("WRITE")).allMatch(e -> e.client().equals(first) && e.accepted());
            assertThat(referee.events("WRITE").size()).as("the leader kept working").isGreaterThan(1000);
            assertThat(referee.report().violations() + referee.report().fenceRegressions()).as("%s", referee.report()).isZero();
            System.out.println("stable leadership: " + blips + " blips of " + BLIP.toMillis() + " ms, "
                    + referee.events("WRITE").size() + " writes, one election");
        }
    }
}
