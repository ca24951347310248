package io.coordis.cli;

import io.coordis.redis.runner.RedisBinary;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code coordis demo} in its own JVM: the whole tour with the redis-server binary shipped in the jar (no
 * Redis installed needed), and with a given server, which it leaves as it found it.
 */
class DemoIT {
    /** Generous: the tour takes about 10 s alone, and starts two more JVMs; CI machines are busy. */
    private static final Duration TOUR_LIMIT = Duration.ofSeconds(90);
    private static final Pattern ACQUIRED = Pattern.compile("worker-\\d+ acquired demo:printer \\(fencing token (\\d+)\\)");
    private static final Pattern STARTED = Pattern.compile("started redis-server (\\S+) on 127\\.0\\.0\\.1:(\\d+) \\(([^)]*)\\)");

    private static List<Long> tokens(String narration) {
        List<Long> tokens = new ArrayList<>();
        Matcher m = ACQUIRED.matcher(narration);
        while (m.find()) {
            tokens.add(Long.parseLong(m.group(1)));
        }
        return tokens;
    }

    private static void assertStrictlyIncreasing(List<Long> tokens, int count) {
        assertThat(tokens).hasSize(count);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
        }
    }

    private static long number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertThat(m.find()).as("'%s' in:%n%s", regex, text).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static final Pattern STARTED_CHILD = Pattern.compile(
            "started (alpha|consumer A) as a process of its own \\(pid (\\d+)\\): coordis (elect|queue work) ");
    private static final Pattern KILLED = Pattern.compile("kill -9 (\\d+): [^(]*\\([^,]*, pid ([\\d, ]+), is killed too\\)");

    /**
     * The leader and consumer A were processes of their own, other than the CLI, each killed with SIGKILL
     * together with the command it ran; none of them is left running.
     */
    private static void assertTheDeathsWereRealProcesses(CliProcess cli) {
        String said = cli.stderr();
        List<Long> started = new ArrayList<>();
        Matcher m = STARTED_CHILD.matcher(said);
        while (m.find()) {
            started.add(Long.parseLong(m.group(2)));
        }
        List<Long> killed = new ArrayList<>();
        List<Long> commands = new ArrayList<>();
        m = KILLED.matcher(said);
        while (m.find()) {
            killed.add(Long.parseLong(m.group(1)));
            for (String pid : m.group(2).split(",\\s*")) {
                commands.add(Long.parseLong(pid.trim()));
            }
        }
        assertThat(started).as(said).hasSize(2).doesNotContain(cli.pid());
        assertThat(killed).as("the processes killed are the ones started").isEqualTo(started);
        assertThat(commands).as("the commands they ran (sleep), killed too").hasSizeGreaterThanOrEqualTo(2)
                .doesNotContainAnyElementsOf(started);
        for (long pid : concat(started, commands)) {
            // a zombie has no command line; a pid reused by someone else's process has another one
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive).flatMap(p -> p.info().commandLine())
                    .filter(c -> c.contains("sleep 30") || c.contains("demo:")))
                    .as("process %d after the demo", pid).isEmpty();
        }
        assertThat(said).contains("    alpha| coordis: elected leader of 'demo:leader' as alpha (term ",
                "    A| coordis: working on queue 'demo:jobs'");
    }

    private static List<Long> concat(List<Long> a, List<Long> b) {
        List<Long> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** Every part of the tour shows what it claims, in the narration (stderr) and the tables (stdout). */
    private static void assertTheTour(CliProcess cli, int workers, int rounds) {
        String said = cli.stderr();
        String out = cli.stdout();
        assertTheDeathsWereRealProcesses(cli);
        assertStrictlyIncreasing(tokens(said), workers * rounds);
        long first = number(said, "alpha is leader of demo:leader with term (\\d+)");
        long next = number(said, "beta is leader with term (\\d+)");
        assertThat(next).isGreaterThan(first);
        assertThat(said).contains("3 of 3 waiters woke", "exactly one of 3 waiters woke",
                "consumer A took 'resize photo-1'", "consumer B got 'resize photo-1' back",
                "after A was killed (attempt 2) and acked it",
                "(attempt 3 of 3): dead-lettered", "nothing lost");
        assertThat(said).doesNotContain("Exception", "\tat ");
        assertThat(out).contains("locks (1)", "demo:printer", "elections (1)", "beta", "queues (1)", "demo:jobs",
                "signals (1)", "demo:build", "green", "Try it yourself in two terminals");
        String queueRow = out.lines().filter(l -> l.startsWith("demo:jobs ")).findFirst().orElseThrow();
        assertThat(queueRow.split("\\s+")).as(queueRow).startsWith("demo:jobs", "0", "0", "-", "-", "0", "1");
    }

    @Test
    void runsTheWholeTourOnTheRedisShippedInTheJarInUnderAMinute() {
        long started = System.nanoTime();
        try (CliProcess cli = CliProcess.startWithEnv("COORDIS_REDIS_EMBEDDED", "1", "demo")) {
            assertThat(cli.exitCode(TOUR_LIMIT)).as(cli.stderr()).isZero();
            long took = Duration.ofNanos(System.nanoTime() - started).toMillis();
            assertThat(took).as("the demo's wall time").isLessThan(60_000);
            System.out.println("demo took " + took + " ms");
            Matcher server = STARTED.matcher(cli.stderr());
            assertThat(server.find()).as(cli.stderr()).isTrue();
            // the binary extracted from the embedded-redis jar: ${java.io.tmpdir}/coordis-redis-<version-os-arch>/redis-server
            RedisBinary embedded = RedisBinary.embedded();
            assertThat(Path.of(server.group(3))).as("the binary from the jar, not one installed").isEqualTo(embedded.path());
            assertThat(embedded.path().getParent().getFileName().toString()).startsWith("coordis-redis-6.2.");
            assertThat(embedded.path()).isExecutable();
            assertThat(server.group(1)).as("the version the demo ran").isEqualTo(embedded.version()).startsWith("6.2.");
            assertTheTour(cli, 4, 3);
            String port = server.group(2);
            List<String> paste = cli.stdout().lines().filter(l -> l.contains("terminal ") || l.contains("either:")
                    || l.contains("a browser:")).toList();
            assertThat(paste).hasSizeGreaterThanOrEqualTo(9).allMatch(l -> l.contains("-u redis://127.0.0.1:" + port + " "));
            assertThat(paste).anyMatch(l -> l.contains(" dashboard --match 'demo:*'"));
            assertThat(cli.stderr()).contains("stopped redis-server on 127.0.0.1:" + port, "demo --keep");
        }
    }

    @Test
    void usesTheGivenRedisAndLeavesNoDemoKeysBehind() {
        try (RedisServer server = RedisServer.start()) {
            server.command("SET", Prefixed.key("mine"), "untouched");
            try (CliProcess cli = CliProcess.start("demo", "--url", server.uri(), "--workers", "3", "--rounds", "2")) {
                assertThat(cli.exitCode(TOUR_LIMIT)).as(cli.stderr()).isZero();
                assertThat(cli.stderr()).startsWith("using Redis at " + server.uri());
                assertTheTour(cli, 3, 2);
                assertThat(cli.stderr()).containsPattern("removed the demo's \\d+ keys");
            }
            assertThat(server.command("KEYS", "*demo*")).as("keys the demo left").isEqualTo(List.of());
            assertThat(server.command("GET", Prefixed.key("mine"))).isEqualTo("untouched");
        }
    }

    @Test
    void jsonOutputPutsOnlyTheTablesAsJsonOnStdoutAndNarratesOnStderr() {
        try (RedisServer server = RedisServer.start();
             CliProcess cli = CliProcess.start("demo", "--url", server.uri(), "--workers", "2", "--rounds", "2",
                     "-o", "json")) {
            assertThat(cli.exitCode(TOUR_LIMIT)).as(cli.stderr()).isZero();
            String said = cli.stderr();
            List<String> docs = cli.stdout().lines().toList();
            assertThat(docs).as(cli.stdout()).hasSize(4);
            List<Map<String, Object>> tables = docs.stream().map(TestJson::object).toList();
            assertThat(tables).extracting(t -> t.get("kind")).containsExactly("locks", "elections", "queues", "signals");
            assertThat(tables).extracting(t -> t.get("match")).containsOnly("demo:*");

            List<Long> tokens = tokens(said);
            assertStrictlyIncreasing(tokens, 4);
            List<Object> locks = TestJson.list(tables.get(0).get("items"));
            assertThat(locks).hasSize(1);
            Map<String, Object> lock = TestJson.map(locks.get(0));
            assertThat(lock).containsEntry("name", "demo:printer").containsEntry("mode", "single-node")
                    .containsEntry("held", true);
            assertThat((Long) lock.get("fence")).as("the lock's number, after the four above").isGreaterThan(tokens.get(3));
            assertThat(TestJson.map(lock.get("holder")).get("id")).as("a Coordis holder records itself").isNotNull();

            List<Object> elections = TestJson.list(tables.get(1).get("items"));
            assertThat(elections).hasSize(1);
            assertThat(TestJson.map(elections.get(0))).containsEntry("name", "demo:leader").containsEntry("leader", "beta")
                    .containsEntry("term", number(said, "beta is leader with term (\\d+)"));

            List<Object> queues = TestJson.list(tables.get(2).get("items"));
            assertThat(queues).hasSize(1);
            assertThat(TestJson.map(queues.get(0))).containsEntry("name", "demo:jobs").containsEntry("depth", 0L)
                    .containsEntry("inFlight", 0L).containsEntry("overdue", 0L).containsEntry("deadLetters", 1L);

            List<Object> signals = TestJson.list(tables.get(3).get("items"));
            assertThat(signals).hasSize(1);
            assertThat(TestJson.map(signals.get(0))).containsEntry("channel", "demo:build").containsEntry("latched", "green");

            assertThat(said).contains("== Locks: 2 workers", "beta is leader with term", "nothing lost",
                    "Try it yourself in two terminals", "terminal 2:  ");
            assertThat(said).doesNotContain("Exception", "\tat ");
        }
    }

    @Test
    void anUnknownOutputFormatIsRefusedBeforeAnythingStarts() {
        try (CliProcess cli = CliProcess.start("demo", "-o", "yaml")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).startsWith("coordis: unknown output format 'yaml': use text or json\n");
            assertThat(cli.stderr()).doesNotContain("started redis-server");
            assertThat(cli.stdout()).isEmpty();
        }
    }

    @Test
    void keepIsRefusedWithAUrl() {
        try (CliProcess cli = CliProcess.start("demo", "--url", "redis://127.0.0.1:1", "--keep")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).contains("--keep").doesNotContain("\tat ");
        }
    }

    @Test
    void theFatJarRunsOnItsOwn() {
        Path jar = CliProcess.fatJar();
        assumeTrue(jar != null && Files.isRegularFile(jar), "the fat jar is built by 'mvn package'");
        try (CliProcess version = CliProcess.startJar(jar, "--version")) {
            assertThat(version.exitCode()).isZero();
            assertThat(version.stdout()).startsWith("coordis 0.");
        }
        try (CliProcess demo = CliProcess.startJar(jar, "demo", "--workers", "2", "--rounds", "2")) {
            assertThat(demo.exitCode(TOUR_LIMIT)).as(demo.stderr()).isZero();
            assertTheTour(demo, 2, 2);
            assertThat(demo.stdout()).contains("java -jar " + jar.toAbsolutePath());
        }
    }
}
