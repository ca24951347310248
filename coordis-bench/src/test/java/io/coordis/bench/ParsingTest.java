package io.coordis.bench;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The text the runner reads: child result lines, INFO commandstats, redis-benchmark CSV, and its options. */
class ParsingTest {

    @Test
    void resultLinesRoundTrip() {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("scenario", "lock-\"x\"\\y");
        line.put("ops", 1234L);
        line.put("opsPerSec", 617.25);
        line.put("missing", Double.NaN);
        Map<String, Object> back = ResultLine.parse(ResultLine.write(line));
        assertThat(back.get("scenario")).isEqualTo("lock-\"x\"\\y");
        assertThat(back.get("ops")).isEqualTo(1234.0);
        assertThat(back.get("opsPerSec")).isEqualTo(617.25);
        assertThat((Double) back.get("missing")).isNaN();
        assertThat(ResultLine.write(line)).isEqualTo("{\"scenario\":\"lock-\\\"x\\\"\\\\y\",\"ops\":1234,\"opsPerSec\":617.250,"
                + "\"missing\":null}");
        assertThatThrownBy(() -> ResultLine.parse("{\"a\":12x}")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void commandCountsOfTheWindowAloneWithoutInfo() {
        Map<String, Long> before = CommandStats.parse(Map.of(
                "cmdstat_set", "calls=10,usec=20,usec_per_call=2.00",
                "cmdstat_info", "calls=3,usec=1"));
        Map<String, Long> after = CommandStats.parse(Map.of(
                "cmdstat_set", "calls=30,usec=60,usec_per_call=2.00",
                "cmdstat_evalsha", "calls=20,usec=80,usec_per_call=4.00,rejected_calls=0,failed_calls=0",
                "cmdstat_info", "calls=9,usec=1",
                "redis_version", "7.0.15"));
        Map<String, Long> delta = CommandStats.delta(before, after);
        assertThat(delta).containsExactlyInAnyOrderEntriesOf(Map.of("set", 20L, "evalsha", 20L));
        assertThat(CommandStats.perOp(Map.of("set", 20L, "get", 40L), 20)).isEqualTo("get 2.00, set 1.00");
        assertThat(CommandStats.cpuSeconds(Map.of("used_cpu_sys", "1.250000", "used_cpu_user", "0.500000",
                "used_cpu_sys_children", "9.0"))).isEqualTo(1.75);
        assertThat(CommandStats.cpuSeconds(Map.of())).isNaN();
    }

    @Test
    void redisBenchmarkCsv() {
        String csv = """
                "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
                "PING_INLINE","31595.58","0.022","0.008","0.023","0.031","0.047","1.015"
                "SET","29112.08","0.027","0.008","0.023","0.039","0.063","0.559"
                """;
        assertThat(RedisBenchmark.parseCsv(csv)).containsExactly(Map.entry("PING_INLINE", 31595.58), Map.entry("SET", 29112.08));
    }

    @Test
    void optionsAndTheirErrors() {
        Options o = Options.parse("--rounds", "2", "--seconds", "3", "--warmup", "0.5", "--only", "lock-uncontended,redlock",
                "--out", "/tmp/x.md");
        assertThat(o.rounds()).isEqualTo(2);
        assertThat(o.measure()).isEqualTo(Duration.ofSeconds(3));
        assertThat(o.warmup()).isEqualTo(Duration.ofMillis(500));
        assertThat(o.out()).isEqualTo(Path.of("/tmp/x.md"));
        assertThat(o.only()).isEqualTo(List.of("lock-uncontended", "redlock"));
        assertThat(o.selects("redlock-5")).isTrue();
        assertThat(o.selects("signal-latency")).isFalse();
        assertThat(Options.parse().selects("anything")).isTrue();
        assertThat(Options.parse().jfr()).isNull();
        assertThat(Options.parse("--jfr", "/tmp/j").jfr()).isEqualTo(Path.of("/tmp/j"));

        assertThatThrownBy(() -> Options.parse("--rounds", "0")).hasMessageContaining("--rounds must be between 1 and 1000, got 0");
        assertThatThrownBy(() -> Options.parse("--rounds", "two")).hasMessageContaining("--rounds takes a whole number, got 'two'");
        assertThatThrownBy(() -> Options.parse("--seconds")).hasMessageContaining("--seconds needs a value");
        assertThatThrownBy(() -> Options.parse("--fast")).hasMessageContaining("unknown option '--fast'");
    }

    @Test
    void everyScenarioListsCoordisFirstAndItsTargetsNameKnownImplementationsOrScenarios() {
        List<Scenario> all = Scenarios.all();
        assertThat(all).extracting(Scenario::id).doesNotHaveDuplicates();
        for (Scenario s : all) {
            assertThat(s.implementations().get(0)).isEqualTo("coordis");
            for (Target t : s.targets()) {
                if (t.kind() == Target.Kind.RATIO) {
                    assertThat(s.implementations()).as(s.id() + ": " + t.text()).contains(t.other());
                }
                if (t.kind() == Target.Kind.GROWTH) {
                    assertThat(Scenarios.byId(t.other())).as(s.id() + ": " + t.text()).isPresent();
                }
            }
        }
    }
}
