package io.coordis.ratelimit;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.RedisServer;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Client JVMs ({@link RateProcess}) asking one rate limiter together for ten times its rate, each with its wall clock
 * moved by {@code faketime}: a fixed skew, or a clock that steps during the run. Shared by {@link SkewedClientsIT} and
 * the long run of the {@code soak} profile. Not thread-safe; one run at a time.
 */
public final class SkewedClients {
    /** The limit every run asks for. */
    public static final String LIMIT = "25/1s";
    /** Four clocks, two an hour ahead and two an hour behind, and one stepping from real time to +1 h to −1 h. */
    public static final List<Clock> CLOCKS = List.of(Clock.fixed("+1h"), Clock.fixed("-1h"), Clock.fixed("+1h"),
            Clock.fixed("-1h"), Clock.stepping("+0", "+1h", "-1h"));

    private static final Path[] LIBRARY_DIRS = {Path.of("/usr/lib/x86_64-linux-gnu/faketime"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime"), Path.of("/usr/lib64/faketime"), Path.of("/usr/lib/faketime"),
            Path.of("/usr/local/lib/faketime")};

    private SkewedClients() {
    }

    /**
     * A client's wall clock: {@code offsets} in faketime's form ({@code +1h}, {@code -1h}, {@code +0}), the first from
     * the start, each next one taking over at an even share of the run (three offsets: at a third and two thirds).
     *
     * @param offsets one offset (a fixed skew) or several (a clock that steps)
     */
    public record Clock(List<String> offsets) {
        public Clock {
            offsets = List.copyOf(offsets);
            if (offsets.isEmpty()) {
                throw new IllegalArgumentException("a clock needs at least one offset, e.g. +1h");
            }
        }

        static Clock fixed(String offset) {
            return new Clock(List.of(offset));
        }

        static Clock stepping(String... offsets) {
            return new Clock(List.of(offsets));
        }

        /**
         * Whether the clock steps during the run.
         *
         * @return {@code true} for more than one offset
         */
        public boolean steps() {
            return offsets.size() > 1;
        }

        @Override
        public String toString() {
            return String.join(" → ", offsets);
        }
    }

    /**
     * What the children were granted in the window from the first request to the last reply, by Redis's clock, and
     * how far each child's clock was from Redis's at the end ({@code skews}, ms) and how far it stepped during the run
     * ({@code steps}: the widest spread of wall minus monotonic time it saw, ms).
     */
    public record Run(long granted, long first, long last, List<Clock> clocks, List<Long> skews, List<Long> steps) {
        public Run {
            clocks = List.copyOf(clocks);
            skews = List.copyOf(skews);
            steps = List.copyOf(steps);
        }

        /**
         * What was wrong with the clocks, if anything: every one must end over 59 minutes off Redis's; a stepping one
         * must have moved over 119 minutes during the run (from +1 h to −1 h), a fixed one less than a minute.
         */
        public List<String> clockProblems() {
            List<String> problems = new ArrayList<>();
            for (int i = 0; i < clocks.size(); i++) {
                Clock clock = clocks.get(i);
                if (Math.abs(skews.get(i)) <= Duration.ofMinutes(59).toMillis()) {
                    problems.add("child " + i + " (" + clock + ") ended only " + skews.get(i) + " ms off Redis's clock");
                }
                boolean stepped = steps.get(i) > Duration.ofMinutes(119).toMillis();
                boolean still = steps.get(i) < Duration.ofMinutes(1).toMillis();
                if (clock.steps() ? !stepped : !still) {
                    problems.add("child " + i + " (" + clock + ") stepped " + steps.get(i) + " ms during the run");
                }
            }
            return problems;
        }

        /** Each clock as set, where it ended and how far it stepped, for a report. */
        public String describeClocks() {
            List<String> each = new ArrayList<>();
            for (int i = 0; i < clocks.size(); i++) {
                each.add(String.format(Locale.ROOT, "%s: %+.1f min at the end, stepped %.1f min", clocks.get(i),
                        skews.get(i) / 60_000.0, steps.get(i) / 60_000.0));
            }
            return String.join("; ", each);
        }

        /** {@code burst + time / interval} over the window. */
        public double allowed() {
            RateLimit limit = RateLimit.parse(LIMIT);
            return limit.burst() + (last - first) / (limit.interval().toNanos() / 1e3);
        }

        /** Granted ÷ allowed − 1, in per cent: above 0 over-granted. */
        public double errorPercent() {
            return (granted / allowed() - 1) * 100;
        }

        /** Never more than 1 % (and one permit) above {@link #allowed()}: the limiter's guarantee. */
        public boolean atMostOnePercentOver() {
            return granted <= allowed() * 1.01 + 1;
        }

        public boolean withinOnePercent() {
            return Math.abs(granted - allowed()) <= allowed() * 0.01 + 1;
        }

        @Override
        public String toString() {
            return String.format("%d granted in %.3f s, rate × time + burst = %.1f (%+.2f %%)", granted,
                    (last - first) / 1e6, allowed(), errorPercent());
        }
    }

    /**
     * Runs one child per clock for {@code seconds}, asking limiter {@code name} through Coordis ({@code mode=coordis})
     * or through the client-clock control ({@code mode=client-clock}).
     *
     * @throws IllegalStateException when {@code faketime} is not installed
     */
    public static Run run(RedisServer redis, String url, String mode, String name, int seconds, List<Clock> clocks)
            throws Exception {
        RateLimit limit = RateLimit.parse(LIMIT);
        int asks = limit.permits() * 10 / clocks.size(); // per child: together about ten times the limit
        List<ChildJvm> children = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        ScheduledExecutorService steps = Executors.newSingleThreadScheduledExecutor();
        try {
            for (int i = 0; i < clocks.size(); i++) {
                Clock clock = clocks.get(i);
                Path file = clock.steps() ? Files.createTempFile("coordis-clock-", ".txt") : null;
                if (file != null) {
                    files.add(file);
                    set(file, clock.offsets().get(0));
                }
                children.add(ChildJvm.start(mode + "-" + i, java(clock, file), RateProcess.class, List.of(),
                        List.of("host=" + redis.host(), "port=" + redis.port(), "url=" + url, "mode=" + mode,
                                "name=" + name, "limit=" + LIMIT, "asks=" + asks, "seconds=" + seconds)));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY", Duration.ofSeconds(60));
            }
            for (ChildJvm c : children) {
                c.send("GO");
            }
            scheduleSteps(steps, clocks, files, seconds);
            long granted = 0;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            List<Long> skews = new ArrayList<>();
            List<Long> stepped = new ArrayList<>();
            for (ChildJvm c : children) {
                String[] done = c.awaitLine("DONE", Duration.ofSeconds(seconds + 30L)).split(" ");
                granted += Long.parseLong(done[1]);
                first = Math.min(first, Long.parseLong(done[2]));
                last = Math.max(last, Long.parseLong(done[3]));
                skews.add(Long.parseLong(done[4]));
                stepped.add(Long.parseLong(done[5]));
            }
            return new Run(granted, first, last, clocks, skews, stepped);
        } finally {
            steps.shutdownNow();
            for (ChildJvm c : children) {
                c.close();
            }
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** Writes each stepping clock's next offsets at even shares of the run. */
    private static void scheduleSteps(ScheduledExecutorService steps, List<Clock> clocks, List<Path> files, int seconds) {
        int file = 0;
        for (Clock clock : clocks) {
            if (!clock.steps()) {
                continue;
            }
            Path f = files.get(file++);
            int n = clock.offsets().size();
            for (int k = 1; k < n; k++) {
                String offset = clock.offsets().get(k);
                steps.schedule(() -> set(f, offset), seconds * 1000L * k / n, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Replaces the clock file at once (a reader never sees it half written). */
    private static Void set(Path file, String offset) throws IOException {
        Path next = file.resolveSibling(file.getFileName() + ".next");
        Files.writeString(next, offset + "\n", StandardCharsets.UTF_8);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return null;
    }

    /**
     * A {@code java} whose wall clock follows {@code clock}; monotonic time stays real, and timed waits on a condition
     * variable keep their length (without {@code FAKETIME_FORCE_MONOTONIC_FIX=0} they return at once). A fixed skew
     * goes through the {@code faketime} command; a stepping clock preloads the library itself with
     * {@code FAKETIME_TIMESTAMP_FILE} and {@code FAKETIME_NO_CACHE=1}, so that every reading of the clock reads the
     * file again ({@code faketime} would set {@code FAKETIME}, which takes precedence over the file).
     */
    private static Path java(Clock clock, Path file) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path script = Files.createTempFile("coordis-java-clock-", ".sh",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        script.toFile().deleteOnExit();
        String common = "FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_FORCE_MONOTONIC_FIX=0 ";
        String command = clock.steps()
                ? "LD_PRELOAD='" + library().orElseThrow(() -> new IllegalStateException(
                        "the faketime library libfaketimeMT.so.1 is not in any of " + List.of(LIBRARY_DIRS)))
                        + "' FAKETIME_TIMESTAMP_FILE='" + file + "' FAKETIME_NO_CACHE=1 " + common + "exec '" + java + "'"
                : common + "exec " + faketime().orElseThrow(() -> new IllegalStateException(
                        "faketime is not installed (Debian package faketime)")) + " -f '" + clock.offsets().get(0)
                        + "' '" + java + "'";
        Files.writeString(script, "#!/bin/sh\n" + command + " \"$@\"\n");
        return script;
    }

    /** The {@code faketime} executable on the path, if installed. */
    public static Optional<String> faketime() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, "faketime");
            if (Files.isExecutable(p)) {
                return Optional.of(p.toString());
            }
        }
        return Optional.empty();
    }

    /** The multi-threaded faketime library, if installed where distributions put it. */
    public static Optional<Path> library() {
        for (Path dir : LIBRARY_DIRS) {
            Path lib = dir.resolve("libfaketimeMT.so.1");
            if (Files.isReadable(lib)) {
                return Optional.of(lib);
            }
        }
        return Optional.empty();
    }
}
