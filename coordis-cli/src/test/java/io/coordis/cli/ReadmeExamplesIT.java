package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.RequiredCommands;
import io.coordis.cli.support.ExitCodes;
import io.coordis.lock.Lease;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command-line example in README.md runs, in README order, against real servers (the README's
 * addresses replaced by the test's), with stand-ins for the user's own scripts: {@code java -jar
 * coordis-cli/target/coordis.jar} through the launcher script next to the jar, and {@code coordis} as the
 * README sets it up, through a symbolic link in {@code ~/.local/bin} (HOME is a temporary directory that plays
 * the checkout). An example that cannot run unattended is listed below with the test that covers it; any other
 * must exit with the status the README promises (0 unless listed), so a new or changed example that does not
 * work fails here.
 *
 * <p>Every code block of the README must be tagged ({@code sh}, {@code java}, {@code text}, or a configuration
 * language: {@code properties}, {@code yaml}, {@code xml}, {@code json}; {@code java excerpt=PATH} blocks are
 * checked against their source by core's ReadmeExamplesTest), and every line
 * of an {@code sh} block must be a {@code coordis} example or one of the few known other commands (the Maven
 * build, the benchmark runner, setting {@code COORDIS_URL}), so that no example can slip past unrun.
 */
class ReadmeExamplesIT {
    private static final String JAR = "java -jar coordis-cli/target/coordis.jar";
    /** {@code coordis} run by its name (from PATH), or the launcher linked into PATH. */
    private static final Pattern LAUNCHED = Pattern.compile("(^|<\\(|\\|\\s*)coordis |^ln -s \\S*coordis-cli/target/coordis\\b");

    /** Examples that wait for another terminal or run until stopped; the tests named cover them. */
    private static final Map<String, String> NOT_RUN = Map.of(
            "wait jobs:42:done --timeout 10m", "waits for a signal sent from another terminal (SignalIT)",
            "wait --all build:linux", "waits for two signals from elsewhere (SignalIT)",
            "wait --pattern", "waits for a signal from elsewhere (SignalIT)",
            "wait --unicast work &", "a background waiter raced by the next line (SignalIT)",
            "elect reports:scheduler --observe", "runs until Ctrl-C (ElectIT)",
            "queue work jobs", "runs until stopped (QueueCommandIT)",
            "ls locks --watch", "redraws until Ctrl-C (ReadmeLsExamplesIT)",
            "coordis.jar dashboard", "serves a web page until Ctrl-C (DashboardIT)",
            "--tls-cert client.pem", "needs a TLS server and certificate files of its own (TlsCliIT)");

    /**
     * Lines of sh blocks that are not coordis examples, and why they are not run here. The quick start's
     * {@code mvn ... && java -jar coordis-cli/target/coordis.jar demo} builds first; DemoIT runs the demo.
     */
    private static final Map<String, String> NOT_EXAMPLES = Map.of(
            "mvn ", "builds the project (the demo it then starts is run by DemoIT)",
            "coordis-bench/run", "the benchmarks, run by hand on a quiet machine",
            "export COORDIS_URL=", "the test sets COORDIS_URL to its own server for every example",
            "redis-server ", "a Redis for the Spring Boot example, which ExampleApplicationIT starts on a server of its own",
            "java -jar examples/spring-boot/", "the Spring Boot example application, run by ExampleApplicationIT",
            "curl -s 'localhost:8080/actuator/coordis", "a running application's endpoint, which ActuatorIT reads over HTTP",
            "tar xzf coordis-", "the distribution, unpacked into a fresh directory and run from there by DistributionIT");

    /** The tags a code block may have, besides {@code java excerpt=PATH}. */
    private static final List<String> TAGS = List.of("```sh", "```java", "```text", "```properties", "```yaml",
            "```xml", "```json", "```kotlin");

    /** Examples whose documented status is not 0. */
    private static final Map<String, Integer> STATUS = Map.of(
            "leader reports:scheduler", 1,        // the scheduler stand-in ended, and with it the leadership
            "force-unlock nightly-report --yes", 1, // nobody holds it by then
            "force-unlock nightly-report --reason", 64, // no terminal to ask on, and no --yes
            "queue ack jobs 3f9a0c21b7d4/0/1", 1);  // an id made up for the README

    /** What some examples must print on stdout, beyond their exit status. */
    private static final Map<String, String> PRINTS = Map.of(
            "-- ./report.sh", "report.sh ran",
            "-- ./scheduler.sh", "scheduler.sh ran",
            "-- ./backup.sh", "backup.sh ran",
            "coordis --help", "Usage: coordis",
            "source <(coordis completion bash)", "-F _complete_coordis coordis");

    /** Commands run in the same shell right after an example, to show its effect. */
    private static final Map<String, String> THEN = Map.of(
            "source <(coordis completion bash)", "complete -p coordis");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    static List<String> examples() throws Exception {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        boolean inBlock = false;
        boolean inSh = false;
        StringBuilder pending = null;
        for (int n = 0; n < readme.size(); n++) {
            String line = readme.get(n);
            if (line.startsWith("```")) {
                if (!inBlock && !TAGS.contains(line) && !line.startsWith("```java excerpt=")) {
                    throw new AssertionError("README.md line " + (n + 1) + ": tag the code block (" + TAGS
                            + " or java excerpt=PATH), "
                            + "so this test knows whether it holds examples: " + line);
                }
                inBlock = !inBlock;
                inSh = inBlock && line.equals("```sh");
                continue;
            }
            if (!inSh) {
                continue;
            }
            if (pending == null) {
                if (line.isBlank() || line.strip().startsWith("#")) {
                    continue;
                }
                pending = new StringBuilder(line);
            } else {
                pending.append(' ').append(line.strip());
            }
            if (pending.toString().endsWith("\\")) {
                pending.setLength(pending.length() - 1);
                continue;
            }
            String command = pending.toString();
            pending = null;
            if (NOT_EXAMPLES.keySet().stream().anyMatch(command::startsWith)) {
                continue;
            }
            if (!command.contains(JAR) && !LAUNCHED.matcher(command).find()) {
                throw new AssertionError("README.md line " + (n + 1) + ": a shell line that runs no coordis command; "
                        + "make it an example or list it in NOT_EXAMPLES with the reason: " + command);
            }
            out.add(command);
        }
        return out;
    }

    private static void awaitUptime(long seconds) throws InterruptedException {
        for (var server : redis.servers()) {
            while (true) {
                String info = String.valueOf(server.command("INFO", "server"));
                long up = Long.parseLong(info.replaceAll("(?s).*uptime_in_seconds:(\\d+).*", "$1"));
                if (up >= seconds) {
                    break;
                }
                Thread.sleep(500);
            }
        }
    }

    /** The user {@code app} of the README's least-privilege section: every required command, names under app: only. */
    private static void createAppUser(RedisServer server) {
        List<String> setuser = new ArrayList<>(List.of("ACL", "SETUSER", "app", "on", ">secret", "resetkeys",
                "resetchannels"));
        setuser.addAll(RequiredCommands.keyPatterns("app:"));
        setuser.addAll(List.of(RequiredCommands.aclRules(RequiredCommands.allRequiredUses()).split(" ")));
        assertThat(server.command(setuser.toArray(String[]::new))).isEqualTo("OK");
    }

    @Test
    void everyExampleRunsAsDocumented(@TempDir Path dir) throws Exception {
        List<String> examples = examples();
        assertThat(examples).as("examples found").hasSizeGreaterThan(30);
        for (String script : List.of("report.sh", "scheduler.sh", "handle.sh", "backup.sh")) {
            Path p = dir.resolve(script);
            Files.writeString(p, "#!/bin/sh\necho \"" + script + " ran\"\ncat >/dev/null\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        // dir plays the checkout (coordis-cli/target is the build's) and the home directory (~/.local/bin on PATH)
        Path target = Files.createDirectories(dir.resolve("coordis-cli")).resolve("target");
        Files.createSymbolicLink(target, Path.of("target").toAbsolutePath());
        Path bin = Files.createDirectories(dir.resolve(".local").resolve("bin"));
        String launcher = Path.of("target", "coordis").toAbsolutePath().toString();
        RedisServer first = redis.servers().get(0);
        String url = redis.uris().get(0);
        createAppUser(first);
        Map<String, String> results = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Coordis coordis = TestClients.connect(url);
             Lease held = coordis.lock("orders:42").tryAcquire().orElseThrow()) {
            coordis.reliableQueue("jobs").push("job-1");
            List<String> ordered = new ArrayList<>(examples.stream().filter(e -> !e.contains("redis://10.0.0.1")).toList());
            List<String> redlock = examples.stream().filter(e -> e.contains("redis://10.0.0.1")).toList();
            ordered.addAll(redlock);
            boolean waited = false;
            for (String example : ordered) {
                if (redlock.contains(example) && !waited) {
                    // Redlock refuses a node's vote until it has been up longer than the lock's TTL (30 s here)
                    awaitUptime(31);
                    waited = true;
                }
                String skip = NOT_RUN.entrySet().stream().filter(e -> example.contains(e.getKey())).map(Map.Entry::getValue)
                        .findFirst().orElse(null);
                if (skip != null) {
                    results.put(example, "not run: " + skip);
                    continue;
                }
                String command = example.replace(JAR, launcher)
                        .replace("redis://127.0.0.1:6379", url)
                        .replace("@127.0.0.1:6379", "@" + first.address())
                        .replace("redis://10.0.0.1:6379", redis.uris().get(0))
                        .replace("redis://10.0.0.2:6379", redis.uris().get(1))
                        .replace("redis://10.0.0.3:6379", redis.uris().get(2));
                String then = matching(THEN, example);
                int expected = STATUS.entrySet().stream().filter(e -> example.contains(e.getKey()))
                        .map(Map.Entry::getValue).findFirst().orElse(0);
                // the README's user 'app' has keys under app: only; every other example uses the run's prefix
                String prefix = example.contains("redis://app:") ? "" : Prefixed.prefix();
                Run run = run(dir, bin, url, prefix, then == null ? command : command + "\n" + then);
                if (run == null) {
                    failures.add(example + ": still running after 60 s");
                    continue;
                }
                results.put(example, "exit " + run.status());
                if (run.status() != expected) {
                    failures.add(example + ": exit " + run.status() + ", expected " + expected + "; " + run.err().strip()
                            + " / " + run.out().strip());
                }
                String prints = matching(PRINTS, example);
                if (prints != null && !run.out().contains(prints)) {
                    failures.add(example + ": printed no '" + prints + "' on stdout: " + run.out().strip());
                }
                if (run.err().contains("\tat ") || run.err().contains("Exception")) {
                    failures.add(example + ": a stack trace: " + run.err());
                }
            }
            assertThat(held.isHeld()).isTrue();
            assertThat(Files.isSymbolicLink(bin.resolve("coordis"))).as("ln -s made ~/.local/bin/coordis").isTrue();
            // the README's user 'app' is limited to names under app:
            Run other = run(dir, bin, url, "", launcher + " -u redis://app:secret@" + first.address()
                    + " lock other:nightly -- ./backup.sh");
            assertThat(other).isNotNull();
            assertThat(other.status()).as(other.err()).isEqualTo(ExitCodes.NO_PERMISSION);
            assertThat(other.out()).isEmpty();
        } finally {
            Files.deleteIfExists(bin.resolve("coordis"));
            Files.deleteIfExists(target); // the link only, never the build's directory
        }
        results.forEach((k, v) -> System.out.println(v + "  <-  " + k));
        assertThat(failures).isEmpty();
    }

    private static String matching(Map<String, String> map, String example) {
        return map.entrySet().stream().filter(e -> example.contains(e.getKey())).map(Map.Entry::getValue).findFirst()
                .orElse(null);
    }

    record Run(int status, String out, String err) {
    }

    /**
     * Runs {@code script} with bash in {@code dir}, HOME there, {@code prefix} as the key prefix; null when it is
     * still running after 60 s.
     */
    private static Run run(Path dir, Path bin, String url, String prefix, String script) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().put("COORDIS_URL", url);
        pb.environment().put(CoordisCommand.KEY_PREFIX_ENV, prefix);
        pb.environment().put("HOME", dir.toString());
        pb.environment().put("PATH", bin + ":" + dir + ":" + System.getenv("PATH"));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
