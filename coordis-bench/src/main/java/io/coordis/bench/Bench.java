package io.coordis.bench;

import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark runner: starts the redis-servers, runs every selected scenario's implementations in
 * fresh child JVMs ({@link Child}), round after round in rotated order, counts Redis commands around each
 * measured window, and writes the report ({@link Report}) and the raw result lines. Run through
 * {@code coordis-bench/run}; {@link Options#USAGE} lists the options.
 */
public final class Bench {
    /** The JVM options of every measuring child: the same for all implementations. */
    static final List<String> CHILD_JVM = List.of("-Xms256m", "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    /** Coordis's default lock TTL; its Redlock restart guard wants the servers up at least this long + 1 s. */
    private static final Duration LOCK_TTL = Duration.ofSeconds(30);

    private final Options options;
    private final Results results;
    private final List<Scenario> scenarios;
    private final Report report;
    private final Writer raw;

    private Bench(Options options, List<Scenario> scenarios, Map<String, String> environment, Writer raw, String rawName) {
        this.options = options;
        this.scenarios = scenarios;
        this.results = new Results(options.rounds());
        this.report = new Report(options, environment, scenarios, results, rawName);
        this.raw = raw;
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        List<Scenario> scenarios = Scenarios.all().stream().filter(s -> options.selects(s.id())).toList();
        boolean redisBenchmark = options.selects("redis-benchmark");
        if (scenarios.isEmpty() && !redisBenchmark) {
            System.err.println("--only " + String.join(",", options.only()) + " selects no scenario; ids are: "
                    + String.join(", ", Scenarios.all().stream().map(Scenario::id).toList()) + ", redis-benchmark");
            System.exit(2);
            return;
        }
        int servers = scenarios.stream().mapToInt(Scenario::servers).max().orElse(1);
        Path out = options.out().toAbsolutePath();
        Files.createDirectories(out.getParent());
        String rawName = out.getFileName().toString().replaceFirst("\\.md$", "") + "-raw.jsonl";
        Path rawPath = out.resolveSibling(rawName);
        System.out.printf("starting %d redis-server(s)%n", servers);
        try (RedisGroup group = RedisGroup.masters(servers);
             Writer raw = Files.newBufferedWriter(rawPath, StandardCharsets.UTF_8)) {
            Bench bench = new Bench(options, scenarios, environment(group.server(0), args), raw, rawName);
            bench.runAll(group, redisBenchmark);
            Files.writeString(out, bench.report.render(), StandardCharsets.UTF_8);
        }
        System.out.println("wrote " + out + " and " + rawPath);
    }

    private void runAll(RedisGroup group, boolean redisBenchmark) throws Exception {
        Optional<Path> benchmarkBinary = RedisBenchmark.binary();
        if (redisBenchmark && benchmarkBinary.isEmpty()) {
            report.redisBenchmarkNote("Skipped: `redis-benchmark` is not on PATH (install `redis-tools`).");
        }
        List<Scenario> runnable = new ArrayList<>();
        for (Scenario s : scenarios) {
            Optional<String> why = Scenarios.unavailable(s);
            if (why.isPresent()) {
                System.out.printf("skipping %s: %s%n", s.id(), why.get());
                report.skipped(s.id(), why.get());
            } else {
                runnable.add(s);
            }
        }
        for (int round = 0; round < options.rounds(); round++) {
            for (Scenario s : runnable) {
                List<RedisServer> servers = group.servers().subList(0, s.servers());
                if (s.redlock()) {
                    awaitUptime(servers, LOCK_TTL.plusSeconds(2));
                }
                for (String impl : Rotation.order(s.implementations(), round)) {
                    runOne(s, impl, round, servers);
                }
            }
            if (redisBenchmark && benchmarkBinary.isPresent()) {
                for (RedisBenchmark.Setup setup : RedisBenchmark.SETUPS) {
                    System.out.printf("round %d/%d redis-benchmark %s%n", round + 1, options.rounds(), setup.label());
                    try {
                        group.server(0).flushAll();
                        int r = round;
                        RedisBenchmark.run(benchmarkBinary.get(), group.server(0).port(), setup)
                                .forEach((test, rps) -> report.redisBenchmark(setup.label(), test, r, rps));
                    } catch (IOException e) {
                        results.failed("redis-benchmark " + setup.label() + ": " + e.getMessage());
                    }
                }
            }
        }
    }

    private void runOne(Scenario s, String impl, int round, List<RedisServer> servers) throws Exception {
        String name = s.id() + "/" + impl + " round " + (round + 1);
        System.out.printf("round %d/%d %-22s %-20s ", round + 1, options.rounds(), s.id(), impl);
        System.out.flush();
        servers.forEach(RedisServer::flushAll);
        List<String> args = new ArrayList<>(List.of(s.id(), impl, Long.toString(options.warmup().toMillis()),
                Long.toString(options.measure().toMillis())));
        servers.forEach(server -> args.add(server.uri()));
        Duration slack = Duration.ofSeconds(120);
        List<String> jvm = new ArrayList<>(CHILD_JVM);
        String extra = System.getenv("COORDIS_BENCH_CHILD_OPTS"); // e.g. a profiler agent, for every child
        if (extra != null && !extra.isBlank()) {
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        if (options.jfr() != null) {
            Files.createDirectories(options.jfr());
            Path file = options.jfr().resolve(s.id() + "-" + impl + "-r" + (round + 1) + ".jfr").toAbsolutePath();
            jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + file);
        }
        try (ChildRun child = ChildRun.start(name, jvm, args)) {
            child.await("READY", options.warmup().plus(Child.SETTLE_LIMIT).plus(slack));
            CommandStats.Snapshot before = CommandStats.snapshot(servers);
            child.send("GO");
            child.await("STOPPED", options.measure().plus(slack));
            CommandStats.Snapshot after = CommandStats.snapshot(servers);
            child.send("CONTINUE");
            Map<String, Object> result = new LinkedHashMap<>(ResultLine.parse(child.await("RESULT", slack)));
            if (!child.awaitExit(Duration.ofSeconds(30))) {
                System.out.print("(did not exit; killed) ");
            }
            Map<String, Long> delta = CommandStats.delta(before.calls(), after.calls());
            double ops = result.get("ops") instanceof Number n ? n.doubleValue() : 0;
            long total = delta.values().stream().mapToLong(Long::longValue).sum();
            result.put("round", (double) (round + 1));
            result.put("redisCommandsPerOp", ops > 0 ? total / ops : Double.NaN);
            result.put("redisCommands", ops > 0 ? CommandStats.perOp(delta, ops) : "");
            result.put("redisCpuUsPerOp", ops > 0 ? (after.cpuSeconds() - before.cpuSeconds()) * 1e6 / ops : Double.NaN);
            results.add(s.id(), impl, round, result);
            raw.write(ResultLine.write(result) + "\n");
            raw.flush();
            System.out.printf("%s %s%n", Report.num(number(result, s.headline())), Report.label(s.headline()));
        } catch (RuntimeException e) {
            // one failed run (a child that crashed, timed out or printed something unreadable) is reported, not fatal
            System.out.println("FAILED");
            System.out.println("  " + e.getMessage());
            results.failed(e.getMessage());
        }
    }

    private static double number(Map<String, Object> result, String key) {
        return result.get(key) instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    /** Blocks until every server has been up at least {@code uptime} (INFO server, whole seconds). */
    private static void awaitUptime(List<RedisServer> servers, Duration uptime) throws InterruptedException {
        boolean told = false;
        for (RedisServer s : servers) {
            while (Long.parseLong(s.info("server").get("uptime_in_seconds")) < uptime.toSeconds()) {
                if (!told) {
                    System.out.printf("waiting until the servers are up %d s (Coordis' Redlock restart guard)%n", uptime.toSeconds());
                    told = true;
                }
                TimeUnit.MILLISECONDS.sleep(250);
            }
        }
    }

    /** Machine, versions and command, for the report. */
    static Map<String, String> environment(RedisServer server, String[] args) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("Date", Instant.now().toString());
        String command = System.getProperty("bench.command");
        env.put("Command", "`" + (command != null ? command : "java -cp … " + Bench.class.getName() + " " + String.join(" ", args)) + "`");
        env.put("CPU", cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " cores visible to the JVM");
        env.put("Memory", memTotal());
        env.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version") + " (" + System.getProperty("os.arch") + ")");
        env.put("Load average at start", String.format(Locale.ROOT, "%.2f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        env.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + "; child JVM options " + String.join(" ", CHILD_JVM));
        env.put("Redis", server.version() + " (" + server.binary() + ")");
        env.put("Lettuce", version("io.lettuce", "lettuce-core"));
        env.put("Redisson", version("org.redisson", "redisson"));
        env.put("Coordis", version("io.coordis", "coordis-core"));
        return env;
    }

    private static String version(String group, String artifact) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Bench.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown (no " + resource + " on the class path)";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static String memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("\\D", ""));
                    return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return "unknown";
    }
}
