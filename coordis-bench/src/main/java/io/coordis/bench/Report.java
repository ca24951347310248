package io.coordis.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Markdown report: how to run, this run's machine, versions and command, the targets with their
 * measured ratios and met/missed, then per scenario a table led by the ratios Coordis ÷ each anchor, and
 * the redis-benchmark floor and ceiling.
 */
final class Report {
    /** redis-benchmark figures: per setup label, per test, one value per round (NaN where missing). */
    private final Map<String, Map<String, double[]>> redisBenchmark = new LinkedHashMap<>();
    private String redisBenchmarkNote = "";
    /** Scenarios that could not run on this machine, and why. */
    private final Map<String, String> skipped = new LinkedHashMap<>();

    private final Options options;
    private final Map<String, String> environment;
    private final List<Scenario> scenarios;
    private final Results results;
    private final String rawFileName;

    Report(Options options, Map<String, String> environment, List<Scenario> scenarios, Results results, String rawFileName) {
        this.options = options;
        this.environment = environment;
        this.scenarios = scenarios;
        this.results = results;
        this.rawFileName = rawFileName;
    }

    void redisBenchmark(String setup, String test, int round, double rps) {
        redisBenchmark.computeIfAbsent(setup, k -> new LinkedHashMap<>())
                .computeIfAbsent(test, k -> {
                    double[] v = new double[results.rounds()];
                    Arrays.fill(v, Double.NaN);
                    return v;
                })[round] = rps;
    }

    void redisBenchmarkNote(String note) {
        redisBenchmarkNote = note;
    }

    /** Scenario {@code id} did not run, for {@code reason}; its section says so instead of a table. */
    void skipped(String id, String reason) {
        skipped.put(id, reason);
    }

    String render() {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        if (!options.note().isBlank()) {
            md.append("> **").append(options.note().strip()).append("**\n\n");
        }
        md.append("""
                Run the whole suite, which writes this file, from the repository root:

                ```
                coordis-bench/run
                ```

                Options: `--rounds N` (default 5), `--seconds S` measured per run (default 10), `--warmup S`
                (default 5), `--only ID,...` (scenario ids or prefixes, e.g. `lock-uncontended`, `redlock`,
                `redis-benchmark`), `--out FILE`, `--note TEXT`, `--jfr DIR` (a Flight Recorder file per run,
                to profile where time goes). A quick check:
                `coordis-bench/run --rounds 1 --seconds 3 --warmup 1 --only lock-uncontended --out /tmp/b.md`.

                How it measures: the runner starts real redis-servers through the test kit, then for every
                round and scenario runs each implementation in its own fresh JVM, in an order rotated every
                round (A B C, B C A, C A B, …). A child warms up (discarded) for at least `--warmup`, and on
                until the JIT compiler is quiet (under %d ms of compiling in each of %d seconds in a row,
                at most %d s more), so that compiling does not eat the measured window; then it measures
                for a fixed time. The notes give the warm-up each child needed and the JIT time left in its
                window. The runner reads `INFO commandstats` right before and after the measured window
                only. Servers are flushed before each run. Ratios are formed **within a round** (Coordis ÷
                anchor, both measured minutes apart at most) and then summarised as median [min–max] over
                rounds; the machine is shared and noisy, so the ratios lead, not absolute figures. For
                throughput a ratio above 1 favours Coordis; for latency one below 1 does.
                [performance.md](performance.md) says, for each target missed, where the time goes.

                Implementations: `coordis` with default options; `redisson` 4.7 with its defaults (RLock,
                RedissonMultiLock or RedissonRedLock over several masters, RTopic, a reliable-move queue);
                `lettuce` is raw Lettuce with the minimal commands (`SET NX PX` and the compare-and-delete
                script; `-sequential` and `-parallel` over several masters; `-spin` retries at once while
                busy). `lettuce-scripts` is raw Lettuce sending Coordis's own acquire and release scripts,
                with the same keys and arguments and nothing around them: its distance from `coordis` is
                what the client library costs, its distance from `lettuce` what the fenced protocol costs.
                `coordis-no-yield` (8 contended threads only) is Coordis with `withYieldToPollers(false)`: no
                pause after 100 ms of local hand-offs, for a lock only Coordis clients use.
                The rate-limiter scenarios set Redisson's `RRateLimiter` with `trySetRate(RateType.OVERALL,
                permits, period)` and call `tryAcquire()`: a sliding window whose grants are scored by the client's
                clock, against Coordis's one-key GCRA on Redis's clock. `ratelimit-hot` asks one name from 16
                threads under a limit they cannot reach (every decision a grant: its cost alone).
                `ratelimit-accuracy` asks a fresh name ten times its limit for the measured window and holds the
                permits granted against what the limit allows over that window on Redis's clock, rate × time +
                burst ("granted %%", 100 is exact; error above 0 over-grants). `ratelimit-accuracy-skewed` does the
                same from JVMs whose clocks `faketime` moves an hour ahead and behind; it is skipped, and says so,
                where `faketime` is not installed.
                "Redis CPU" is the redis-server process's CPU time (`INFO cpu`) per operation: it includes
                the system calls of every wake-up, not only running the commands. "client alloc" is the heap
                the client JVM's threads allocated in the measured window per operation (JVM thread counters). The contended scenarios' hand-off
                is the time from the start of one thread's release to the return of the next thread's acquire,
                counted only when that acquire was already waiting. The `lock-same-jvm` scenarios run Coordis and
                `lettuce-scripts` in one JVM, interleaved in short blocks, and report the median of their ratio
                over blocks (what `coordis-bench/run same-jvm` prints): separate JVMs spread too much to tell apart
                two clients that send the same commands.

                """.formatted(Child.QUIET_JIT_MS_PER_SECOND, Child.QUIET_SECONDS, Child.SETTLE_LIMIT.toSeconds()));
        md.append("## This run\n\n");
        environment.forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
        md.append("- Rounds: ").append(options.rounds()).append(", warm-up ").append(seconds(options.warmup().toMillis()))
                .append(", measured ").append(seconds(options.measure().toMillis())).append(" per run\n");
        md.append("- Raw results (one JSON line per run): `").append(rawFileName).append("`\n\n");

        md.append("## Targets\n\n");
        md.append("| scenario | target | measured: median [min–max] over rounds | |\n|---|---|---|---|\n");
        for (Scenario s : scenarios) {
            for (Target t : s.targets()) {
                Summary v = results.check(s, t);
                md.append("| ").append(s.id()).append(" | ").append(t.text()).append(" | ")
                        .append(v.isEmpty() ? "no data" : range(v, t.kind() == Target.Kind.ABSOLUTE ? unitOf(t.metric()) : "×"))
                        .append(" | ").append(v.isEmpty() ? "—" : t.met(v.median()) ? "met" : "**missed**").append(" |\n");
            }
        }
        md.append('\n');

        for (Scenario s : scenarios) {
            scenario(md, s);
        }
        series(md);
        redisBenchmarkSection(md);
        if (!results.failures().isEmpty()) {
            md.append("## Failed runs\n\n");
            results.failures().forEach(f -> md.append("- ").append(firstLine(f)).append('\n'));
            md.append('\n');
        }
        return md.toString();
    }

    private void scenario(StringBuilder md, Scenario s) {
        String headline = s.headline();
        boolean latency = hasMetric(s, "p50Us");
        boolean handoff = hasMetric(s, "handoffP50Us");
        String p50 = latency ? "p50Us" : "acquireP50Us";
        String p99 = latency ? "p99Us" : "acquireP99Us";
        md.append("## ").append(s.title()).append(" (`").append(s.id()).append("`)\n\n");
        if (skipped.containsKey(s.id())) {
            md.append("Skipped: ").append(skipped.get(s.id())).append(".\n\n");
            return;
        }
        md.append("| implementation | Coordis ÷ this (").append(label(headline)).append(") | ").append(label(headline))
                .append(" | ").append(latency ? "latency" : "acquire").append(" p50 µs | p99 µs | ")
                .append(handoff ? "hand-off p50 µs | hand-off p99 µs | " : "")
                .append("client CPU µs/op | client alloc B/op | Redis CPU µs/op | Redis commands/op | commands per op (last round) | notes |\n")
                .append("|---|---|---|---|---|").append(handoff ? "---|---|" : "").append("---|---|---|---|---|---|\n");
        for (String impl : s.implementations()) {
            md.append("| ").append(impl).append(" | ")
                    .append(impl.equals(Scenario.COORDIS) ? "—" : range(results.ratio(s.id(), impl, headline), "×")).append(" | ")
                    .append(range(results.summary(s.id(), impl, headline), "")).append(" | ")
                    .append(num(results.summary(s.id(), impl, p50).median())).append(" | ")
                    .append(num(results.summary(s.id(), impl, p99).median())).append(" | ");
            if (handoff) {
                md.append(num(results.summary(s.id(), impl, "handoffP50Us").median())).append(" | ")
                        .append(num(results.summary(s.id(), impl, "handoffP99Us").median())).append(" | ");
            }
            md.append(num(results.summary(s.id(), impl, "cpuUsPerOp").median())).append(" | ")
                    .append(num(results.summary(s.id(), impl, "allocBytesPerOp").median())).append(" | ")
                    .append(num(results.summary(s.id(), impl, "redisCpuUsPerOp").median())).append(" | ")
                    .append(num(results.summary(s.id(), impl, "redisCommandsPerOp").median())).append(" | ")
                    .append(lastString(s.id(), impl, "redisCommands")).append(" | ")
                    .append(notes(s, impl)).append(" |\n");
        }
        md.append('\n');
    }

    private String notes(Scenario s, String impl) {
        List<String> notes = new ArrayList<>();
        Summary threads = results.summary(s.id(), impl, "threads");
        if (!threads.isEmpty() && threads.median() > 1) {
            notes.add("per-thread cycles min/max " + num(results.summary(s.id(), impl, "threadMinOps").median()) + " / "
                    + num(results.summary(s.id(), impl, "threadMaxOps").median()));
        }
        Summary sameJvm = results.summary(s.id(), impl, "sameJvmRatio");
        if (!sameJvm.isEmpty()) {
            notes.add("Coordis ÷ lettuce-scripts in one JVM, median over " + num(results.summary(s.id(), impl, "blocks").median())
                    + " blocks: cycles/s " + range(sameJvm, "×") + ", CPU per cycle "
                    + range(results.summary(s.id(), impl, "sameJvmCpuRatio"), "×"));
        }
        Summary allowed = results.summary(s.id(), impl, "allowed");
        if (!allowed.isEmpty()) {
            notes.add("granted " + num(results.summary(s.id(), impl, "granted").median()) + " of rate × time + burst "
                    + num(allowed.median()) + ", error " + range(results.summary(s.id(), impl, "errorPct"), " %"));
        }
        Summary offset = results.summary(s.id(), impl, "clockOffsetMinMin");
        if (!offset.isEmpty()) {
            notes.add("clocks " + num(offset.min()) + " to " + num(results.summary(s.id(), impl, "clockOffsetMaxMin").max())
                    + " min from Redis's");
        }
        Summary warmed = results.summary(s.id(), impl, "warmupSeconds");
        if (!warmed.isEmpty()) {
            notes.add("warm-up " + num(warmed.median()) + " s, JIT in window " + num(results.summary(s.id(), impl, "jitMsInWindow").median()) + " ms");
        }
        for (String bad : List.of("violations", "errors", "busy", "lost", "duplicates", "denied")) {
            Summary v = results.summary(s.id(), impl, bad);
            if (!v.isEmpty() && v.max() > 0) {
                notes.add(bad + " " + num(v.median()) + " (max " + num(v.max()) + ")");
            }
        }
        int missing = results.rounds() - results.summary(s.id(), impl, "ops").count();
        if (missing > 0) {
            notes.add(missing + " of " + results.rounds() + " runs failed");
        }
        return String.join("; ", notes);
    }

    private void series(StringBuilder md) {
        Map<String, List<Scenario>> bySeries = new LinkedHashMap<>();
        for (Scenario s : scenarios) {
            if (s.series() != null) {
                bySeries.computeIfAbsent(s.series(), k -> new ArrayList<>()).add(s);
            }
        }
        for (Map.Entry<String, List<Scenario>> e : bySeries.entrySet()) {
            List<Scenario> points = e.getValue();
            String metric = Scenarios.seriesMetric(e.getKey());
            md.append("## ").append(e.getKey()).append(": ").append(label(metric)).append(", median over rounds\n\n| implementation |");
            points.forEach(p -> md.append(' ').append(p.point()).append(" |"));
            md.append('\n').append("|---|");
            points.forEach(p -> md.append("---|"));
            md.append('\n');
            for (String impl : points.get(0).implementations()) {
                md.append("| ").append(impl).append(" |");
                for (Scenario p : points) {
                    md.append(' ').append(p.implementations().contains(impl)
                            ? num(results.summary(p.id(), impl, metric).median()) : "—").append(" |");
                }
                md.append('\n');
            }
            md.append('\n');
        }
    }

    private void redisBenchmarkSection(StringBuilder md) {
        if (redisBenchmark.isEmpty() && redisBenchmarkNote.isEmpty()) {
            return;
        }
        md.append("## redis-benchmark: round-trip floor and server ceiling\n\n");
        if (!redisBenchmarkNote.isEmpty()) {
            md.append(redisBenchmarkNote).append("\n\n");
        }
        if (!redisBenchmark.isEmpty()) {
            md.append("| setup | test | requests/s: median [min–max] | µs per request (1 connection) |\n|---|---|---|---|\n");
            redisBenchmark.forEach((setup, tests) -> tests.forEach((test, v) -> {
                Summary s = Summary.of(v);
                md.append("| ").append(setup).append(" | ").append(test).append(" | ").append(range(s, "")).append(" | ")
                        .append(setup.startsWith("floor") && s.median() > 0 ? num(1e6 / s.median()) : "").append(" |\n");
            }));
            md.append("\nA lock cycle is two round trips (acquire, release), so one thread's ceiling is about half the "
                    + "floor's SET rate.\n\n");
        }
    }

    private boolean hasMetric(Scenario s, String metric) {
        return !results.summary(s.id(), Scenario.COORDIS, metric).isEmpty()
                || s.anchors().stream().anyMatch(a -> !results.summary(s.id(), a, metric).isEmpty());
    }

    private String lastString(String scenario, String impl, String key) {
        for (int r = results.rounds() - 1; r >= 0; r--) {
            Map<String, Object> run = results.get(scenario, impl, r);
            if (run != null && run.get(key) != null) {
                return String.valueOf(run.get(key));
            }
        }
        return "";
    }

    /** The first line of a failure, at most 400 characters (the raw child output is on the console). */
    static String firstLine(String failure) {
        String line = failure.lines().findFirst().orElse("");
        return line.length() <= 400 ? line : line.substring(0, 400) + " …";
    }

    static String label(String metric) {
        return switch (metric) {
            case "opsPerSec" -> "ops/s";
            case "p50Us" -> "p50 µs";
            case "acquireP50Us" -> "acquire p50 µs";
            case "acquireP99Us" -> "acquire p99 µs";
            case "grantedPct" -> "granted % of rate × time + burst";
            default -> metric;
        };
    }

    private static String unitOf(String metric) {
        if (metric.endsWith("Ratio")) {
            return "×";
        }
        if (metric.endsWith("Pct")) {
            return " %";
        }
        return metric.endsWith("Us") ? " µs" : "";
    }

    static String range(Summary s, String unit) {
        if (s.isEmpty()) {
            return "no data";
        }
        if (unit.equals("×")) {
            return String.format(Locale.ROOT, "%.2f× [%.2f–%.2f]", s.median(), s.min(), s.max());
        }
        return num(s.median()) + unit + " [" + num(s.min()) + "–" + num(s.max()) + "]";
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "—";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis / 1000.0 + " s";
    }
}
