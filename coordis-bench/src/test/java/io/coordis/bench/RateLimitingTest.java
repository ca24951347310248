package io.coordis.bench;

import io.coordis.ratelimit.RateLimit;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The rate-limit scenarios' pieces that need no Redis: declarations, clock skews, the report's accuracy lines. */
class RateLimitingTest {

    @Test
    void theScenariosRunCoordisAgainstRedissonAndShareAPrefix() {
        List<String> ids = Scenarios.all().stream().map(Scenario::id).filter(id -> id.startsWith("ratelimit")).toList();
        assertThat(ids).containsExactly("ratelimit-hot", "ratelimit-accuracy", "ratelimit-accuracy-skewed");
        for (String id : ids) {
            assertThat(Scenarios.byId(id).orElseThrow().implementations()).containsExactly("coordis", "redisson");
        }
        assertThat(Scenarios.HOT_LIMIT.interval()).isEqualTo(RateLimit.MIN_INTERVAL);
        assertThat(Scenarios.unavailable(Scenarios.byId("ratelimit-accuracy").orElseThrow())).isEmpty();
    }

    @Test
    void skewsAreWrittenInFaketimesOffsetForm() {
        assertThat(Faketime.spec(Duration.ofHours(1))).isEqualTo("+60m");
        assertThat(Faketime.spec(Duration.ofHours(-1))).isEqualTo("-60m");
        assertThatThrownBy(() -> Faketime.spec(Duration.ofSeconds(90)))
                .hasMessageContaining("whole minutes").hasMessageContaining("PT1M30S");
    }

    @Test
    void redissonIsNotGivenABurstItCannotApply() {
        assertThatThrownBy(() -> new RedissonLimiting("redis://127.0.0.1:1", RateLimit.parse("200/1s").withBurst(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("200/1s burst 5")
                .hasMessageContaining("e.g. 200/1s");
        assertThatThrownBy(() -> Scenarios.limiting("guava", "redis://127.0.0.1:1", RateLimit.parse("1/1s")))
                .hasMessageContaining("no rate-limiter implementation named 'guava'");
    }

    @Test
    void theReportGivesGrantsAgainstTheAllowanceAndSaysWhatWasSkipped() {
        Scenario accuracy = Scenarios.byId("ratelimit-accuracy").orElseThrow();
        Scenario skewed = Scenarios.byId(Scenarios.SKEWED_ACCURACY).orElseThrow();
        Results results = new Results(1);
        results.add(accuracy.id(), "coordis", 0, Map.of("ops", 8000.0, "granted", 995.0, "allowed", 1000.0,
                "grantedPct", 99.5, "errorPct", -0.5, "errorAbsPct", 0.5));
        results.add(accuracy.id(), "redisson", 0, Map.of("ops", 8000.0, "granted", 800.0, "allowed", 1000.0,
                "grantedPct", 80.0, "errorPct", -20.0, "errorAbsPct", 20.0));
        Report report = new Report(Options.parse("--rounds", "1"), Map.of(), List.of(accuracy, skewed), results, "r.jsonl");
        report.skipped(skewed.id(), Faketime.MISSING);
        String md = report.render();
        assertThat(md).contains("| ratelimit-accuracy | granted within 1 % of rate × time + burst | 0.50 % [0.50–0.50] | met |")
                .contains("| redisson | 1.24× [1.24–1.24] | 80.0 [80.0–80.0] |")
                .contains("granted 800 of rate × time + burst 1,000, error -20.0 % [-20.0–-20.0]")
                .contains("Skipped: faketime is not installed");
    }
}
