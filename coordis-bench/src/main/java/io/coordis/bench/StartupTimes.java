package io.coordis.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The {@code coordis} command's start-up, as whole processes: {@code java -version} (the floor any Java program
 * pays), {@code coordis --version} and {@code coordis lock NAME -- true} against the bench's Redis, each started
 * through the launcher next to the jar ({@code coordis-cli/target/coordis}, or {@code $COORDIS_BENCH_CLI}). One
 * round runs the three once, in an order rotated round by round, so drift on a shared machine does not favour one;
 * rounds repeat until the duration is over. Wall time is measured from start to exit; peak memory (resident set) is
 * the kernel's account of the finished process, through {@code /usr/bin/time} where it is installed, else the
 * process's {@code VmHWM} read while it runs (which can miss growth in its last milliseconds).
 *
 * <p>Figures: {@code ops} (rounds), p50 wall milliseconds and p50 peak MiB of each command, and the medians of the
 * per-round ratios {@code versionRatio} and {@code lockRatio} (the command ÷ {@code java -version} of the same round).
 */
final class StartupTimes implements Workload {
    /** The launcher, relative to the repository root that {@code coordis-bench/run} works in. */
    static final Path LAUNCHER = Path.of("coordis-cli", "target", "coordis");
    private static final Path TIME = Path.of("/usr/bin/time");
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    private final String uri;
    private final String launcher;
    private final Path rssFile;
    private int round;

    StartupTimes(String uri) throws IOException {
        this.uri = uri;
        String given = System.getenv("COORDIS_BENCH_CLI");
        Path path = given != null && !given.isBlank() ? Path.of(given) : LAUNCHER;
        if (!Files.isExecutable(path)) {
            throw new IllegalStateException("no coordis launcher at " + path.toAbsolutePath()
                    + ": build it with 'mvn -B -DskipTests package -pl coordis-cli -am', or set COORDIS_BENCH_CLI");
        }
        this.launcher = path.toAbsolutePath().toString();
        this.rssFile = Files.createTempFile("coordis-bench-rss", ".txt");
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        Map<String, List<String>> commands = new LinkedHashMap<>();
        commands.put("java", List.of(JAVA, "-version"));
        commands.put("version", List.of(launcher, "--version"));
        commands.put("lock", List.of(launcher, "lock", "bench:startup", "--", "true"));
        Map<String, List<Double>> wall = new LinkedHashMap<>();
        Map<String, List<Double>> rss = new LinkedHashMap<>();
        List<Double> versionRatio = new ArrayList<>();
        List<Double> lockRatio = new ArrayList<>();
        long started = System.nanoTime();
        int rounds = 0;
        do {
            Map<String, Double> thisRound = new LinkedHashMap<>();
            for (String name : Rotation.order(List.copyOf(commands.keySet()), round++)) {
                double[] figures = measure(commands.get(name));
                thisRound.put(name, figures[0]);
                wall.computeIfAbsent(name, k -> new ArrayList<>()).add(figures[0]);
                rss.computeIfAbsent(name, k -> new ArrayList<>()).add(figures[1]);
            }
            versionRatio.add(thisRound.get("version") / thisRound.get("java"));
            lockRatio.add(thisRound.get("lock") / thisRound.get("java"));
            rounds++;
        } while (System.nanoTime() - started < duration.toNanos());
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("ops", (double) rounds);
        figures.put("seconds", (System.nanoTime() - started) / 1e9);
        figures.put("lockRatio", median(lockRatio));
        figures.put("versionRatio", median(versionRatio));
        for (String name : commands.keySet()) {
            figures.put(name + "WallMs", median(wall.get(name)));
            figures.put(name + "PeakMiB", median(rss.get(name)));
        }
        return figures;
    }

    /** Runs {@code command} to its end: wall milliseconds and peak MiB. */
    private double[] measure(List<String> command) throws IOException, InterruptedException {
        boolean timed = Files.isExecutable(TIME);
        List<String> line = new ArrayList<>();
        if (timed) {
            line.addAll(List.of(TIME.toString(), "-f", "%M", "-o", rssFile.toString()));
        }
        line.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(line)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("COORDIS_URL", uri);
        long start = System.nanoTime();
        Process process = builder.start();
        long peakKiB = 0;
        while (!process.waitFor(timed ? 60_000 : 5, TimeUnit.MILLISECONDS)) {
            if (timed) {
                process.destroyForcibly();
                throw new IllegalStateException(command + " did not finish within a minute");
            }
            peakKiB = Math.max(peakKiB, highWaterMark(process.pid()));
        }
        double wallMs = (System.nanoTime() - start) / 1e6;
        if (process.exitValue() != 0) {
            throw new IllegalStateException(command + " exited with " + process.exitValue());
        }
        if (timed) {
            peakKiB = Long.parseLong(Files.readString(rssFile).strip());
        }
        return new double[] {wallMs, peakKiB / 1024.0};
    }

    /** {@code VmHWM} of process {@code pid} in KiB; 0 once it has gone. */
    private static long highWaterMark(long pid) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (l.startsWith("VmHWM:")) {
                    return Long.parseLong(l.replaceAll("\\D", ""));
                }
            }
        } catch (IOException | RuntimeException gone) {
            // exited between two reads
        }
        return 0;
    }

    private static double median(List<Double> values) {
        return Summary.of(values.stream().mapToDouble(Double::doubleValue).toArray()).median();
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(rssFile);
    }
}
