package io.coordis;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.ContinuousIntegration;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The blocking API on virtual threads: {@link VirtualThreadLoad} on a Java 21+ JDK, with the virtual-thread scheduler
 * held to two carriers, must finish every lock acquisition, semaphore permit, read and write hold, take, signal wait
 * and campaign within its bound, and JFR must record no pinned virtual thread with a Coordis frame on its stack. The JDK is {@code COORDIS_TEST_JAVA25}
 * (a {@code java} executable or a JDK home), else the newest JDK of at least 21 under {@code /usr/lib/jvm}; without
 * one the test is skipped, except on CI ({@code CI} set), where it fails.
 */
class VirtualThreadsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final long SECONDS = 40;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theBlockingApiMakesProgressOnTwoCarriersAndPinsNoCarrierInCoordisCode() throws Exception {
        Optional<Path> java = newJava();
        if (java.isEmpty()) {
            String why = "no JDK 21 or later: set COORDIS_TEST_JAVA25, or install one under /usr/lib/jvm";
            assertThat(ContinuousIntegration.running()).as(why).isFalse();
            Assumptions.abort(why);
        }
        String prefix = Prefixed.prefix().isEmpty() ? "-" : Prefixed.prefix();
        try (ChildJvm child = ChildJvm.start("virtual-threads", java.get(), VirtualThreadLoad.class,
                List.of("-Xmx256m", "-Djdk.virtualThreadScheduler.parallelism=2",
                        "-Djdk.virtualThreadScheduler.maxPoolSize=2"),
                List.of(redis.uri(), prefix, Long.toString(SECONDS)))) {
            Optional<String> finished = child.awaitLine(l -> l.startsWith("DONE") || l.startsWith("TIMEOUT"),
                    Duration.ofSeconds(SECONDS + 10));
            if (finished.isEmpty() || finished.get().startsWith("TIMEOUT")) {
                dumpThreads(java.get(), child.pid());
            }
            String done = finished.orElseThrow(() -> new AssertionError("no progress: " + child.describe()));
            String pinned = child.awaitLine("PINNED ", Duration.ofSeconds(10));
            System.out.println(done + "; " + pinned);
            assertThat(done).contains("locked=400", "taken=200", "signalled=1000", "elected=100", "permitted=300",
                    "readwrite=220");
            Matcher m = Pattern.compile("coordis=(\\d+)").matcher(pinned);
            assertThat(m.find()).isTrue();
            assertThat(Integer.parseInt(m.group(1)))
                    .as("pinned virtual threads in Coordis code: %s", child.lines().stream()
                            .filter(l -> l.startsWith("PINNED-STACK")).toList())
                    .isZero();
            assertThat(child.awaitExit(Duration.ofSeconds(10))).isTrue();
            assertThat(child.exitValue()).isZero();
        }
    }

    /** Prints the child's threads, virtual ones included, for a run that did not finish. */
    private static void dumpThreads(Path java, long pid) throws Exception {
        Path out = Files.createTempFile("coordis-vt-threads-", ".txt");
        Files.delete(out);
        Process jcmd = new ProcessBuilder(java.resolveSibling("jcmd").toString(), Long.toString(pid),
                "Thread.dump_to_file", "-format=text", out.toString()).inheritIO().start();
        if (jcmd.waitFor(20, TimeUnit.SECONDS) && Files.exists(out)) {
            System.out.println("threads of the child (" + out + "):");
            Files.readAllLines(out).stream().limit(400).forEach(System.out::println);
        }
    }

    /** The {@code java} of the JDK to run on: the variable's, or the newest of at least 21 under /usr/lib/jvm. */
    private static Optional<Path> newJava() throws IOException {
        String given = System.getenv("COORDIS_TEST_JAVA25");
        if (given != null && !given.isBlank()) {
            Path p = Path.of(given);
            return Optional.of(Files.isDirectory(p) ? p.resolve("bin").resolve("java") : p);
        }
        Path preferred = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        if (Files.isExecutable(preferred)) {
            return Optional.of(preferred);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && feature(h) >= 21)
                    .max(Comparator.comparingInt(VirtualThreadsIT::feature))
                    .map(h -> h.resolve("bin/java"));
        }
    }

    /** The feature release of the JDK at {@code home}, from its {@code release} file; 0 when unknown. */
    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                Matcher m = Pattern.compile("^JAVA_VERSION=\"(\\d+)").matcher(line);
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
