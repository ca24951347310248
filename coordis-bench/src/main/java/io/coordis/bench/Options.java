package io.coordis.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The runner's options. Defaults make the full suite (5 rounds, 5 s warm-up, 10 s measured per
 * implementation and scenario); {@code --rounds 1 --seconds 3 --warmup 1 --only lock-uncontended} is a
 * quick check.
 *
 * @param rounds  rounds; every implementation runs once per scenario per round, in rotated order
 * @param warmup  warm-up per child JVM, discarded
 * @param measure measured window per child JVM
 * @param only    scenario ids (or id prefixes) to run, {@code redis-benchmark} included; empty for all
 * @param out     the Markdown report; raw results go beside it ({@code <name>-raw.jsonl})
 * @param note    a paragraph put at the top of the report (e.g. "smoke run on a loaded machine"), or empty
 * @param jfr     a directory for one Flight Recorder file per child run (profiling), or {@code null}
 */
record Options(int rounds, Duration warmup, Duration measure, List<String> only, Path out, String note, Path jfr) {

    static final String USAGE = """
            usage: coordis-bench/run [--rounds N] [--seconds S] [--warmup S] [--only ID[,ID...]] [--out FILE] [--note TEXT] [--jfr DIR]
              --rounds N    rounds; each implementation runs once per scenario per round, order rotated (default 5)
              --seconds S   measured seconds per run (default 10)
              --warmup S    warm-up seconds per run, discarded (default 5)
              --only IDS    comma-separated scenario ids or prefixes, e.g. lock-uncontended,redlock,redis-benchmark
              --out FILE    the report to write (default docs/benchmarks.md)
              --note TEXT   a note shown at the top of the report
              --jfr DIR     record every child with Java Flight Recorder (profile settings) into DIR
            environment: COORDIS_BENCH_CHILD_OPTS  extra JVM options for every child (e.g. a profiler agent)
            """;

    static Options parse(String... args) {
        int rounds = 5;
        double seconds = 10;
        double warmup = 5;
        List<String> only = new ArrayList<>();
        Path out = Path.of("docs", "benchmarks.md");
        String note = "";
        Path jfr = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rounds" -> rounds = (int) number(a, value(args, ++i, a), 1, 1000, true);
                case "--seconds" -> seconds = number(a, value(args, ++i, a), 0.1, 3600, false);
                case "--warmup" -> warmup = number(a, value(args, ++i, a), 0, 3600, false);
                case "--only" -> {
                    for (String id : value(args, ++i, a).split(",")) {
                        if (!id.isBlank()) {
                            only.add(id.trim());
                        }
                    }
                }
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--note" -> note = value(args, ++i, a);
                case "--jfr" -> jfr = Path.of(value(args, ++i, a));
                default -> throw new IllegalArgumentException("unknown option '" + a + "'\n" + USAGE);
            }
        }
        return new Options(rounds, Duration.ofMillis(Math.round(warmup * 1000)), Duration.ofMillis(Math.round(seconds * 1000)),
                List.copyOf(only), out, note, jfr);
    }

    /** Whether scenario {@code id} was asked for: all are when {@code --only} is absent. */
    boolean selects(String id) {
        return only.isEmpty() || only.stream().anyMatch(id::startsWith);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
        }
        return args[i];
    }

    private static double number(String option, String text, double min, double max, boolean whole) {
        double v;
        try {
            v = whole ? Integer.parseInt(text) : Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes " + (whole ? "a whole number" : "a number")
                    + ", got '" + text + "'");
        }
        if (!(v >= min && v <= max)) {
            throw new IllegalArgumentException(option + " must be between " + fmt(min) + " and " + fmt(max) + ", got " + text);
        }
        return v;
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
