package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.testkit.RedisExtension;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command-line example in README.md runs, in README order, through the launcher script against real
 * servers (the README's addresses replaced by the test's), with stand-ins for the user's own scripts. An
 * example that cannot run unattended is listed below with the reason; any other example must exit with the
 * status the README promises (0 unless listed), so a new or changed example that does not work fails here.
 */
class ReadmeExamplesIT {
    private static final String JAR = "java -jar coordis-cli/target/coordis.jar";

    /** Examples that wait for another terminal or run until stopped; the tests named cover them. */
    private static final Map<String, String> NOT_RUN = Map.of(
            "wait jobs:42:done --timeout 10m", "waits for a signal sent from another terminal (SignalIT)",
            "wait --all build:linux", "waits for two signals from elsewhere (SignalIT)",
            "wait --pattern", "waits for a signal from elsewhere (SignalIT)",
            "wait --unicast work &", "a background waiter raced by the next line (SignalIT)",
            "elect reports:scheduler --observe", "runs until Ctrl-C (ElectIT)",
            "queue work jobs", "runs until stopped (QueueCommandIT)",
            "ls locks --watch", "redraws until Ctrl-C (ReadmeLsExamplesIT)",
            "force-unlock nightly-report --reason", "asks for confirmation on a terminal (ForceUnlockIT)",
            "--tls-cert client.pem", "needs a TLS server and certificate files of its own (TlsCliIT)",
            "redis://app:secret@", "needs the ACL user 'app' created first (LeastPrivilegeIT)");

    /** Examples whose documented status is not 0. */
    private static final Map<String, Integer> STATUS = Map.of(
            "leader reports:scheduler", 1,        // the scheduler stand-in ended, and with it the leadership
            "force-unlock nightly-report --yes", 1, // nobody holds it by then
            "queue ack jobs 3f9a0c21b7d4/0/1", 1);  // an id made up for the README

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    static List<String> examples() throws Exception {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        boolean inSh = false;
        StringBuilder pending = null;
        for (String line : readme) {
            if (line.startsWith("```")) {
                inSh = line.equals("```sh");
                continue;
            }
            if (!inSh) {
                continue;
            }
            if (pending != null) {
                pending.append(' ').append(line.strip());
            } else if (line.contains(JAR) && !line.startsWith("mvn ")) {
                pending = new StringBuilder(line);
            } else {
                continue;
            }
            if (pending.toString().endsWith("\\")) {
                pending.setLength(pending.length() - 1);
                continue;
            }
            out.add(pending.toString());
            pending = null;
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

    @Test
    void everyExampleRunsAsDocumented(@TempDir Path dir) throws Exception {
        List<String> examples = examples();
        assertThat(examples).as("examples found").hasSizeGreaterThan(30);
        for (String script : List.of("report.sh", "scheduler.sh", "handle.sh")) {
            Path p = dir.resolve(script);
            Files.writeString(p, "#!/bin/sh\necho \"" + script + " ran\"\ncat >/dev/null\n");
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        String launcher = Path.of("target", "coordis").toAbsolutePath().toString();
        String url = redis.uris().get(0);
        Map<String, String> results = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        try (Coordis coordis = Coordis.connect(url);
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
                        .replace("redis://10.0.0.1:6379", redis.uris().get(0))
                        .replace("redis://10.0.0.2:6379", redis.uris().get(1))
                        .replace("redis://10.0.0.3:6379", redis.uris().get(2));
                int expected = STATUS.entrySet().stream().filter(e -> example.contains(e.getKey()))
                        .map(Map.Entry::getValue).findFirst().orElse(0);
                ProcessBuilder pb = new ProcessBuilder("sh", "-c", command).directory(dir.toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
                pb.environment().put("COORDIS_URL", url);
                pb.environment().put("PATH", dir + ":" + System.getenv("PATH"));
                Path out = dir.resolve("out.txt");
                Path err = dir.resolve("err.txt");
                pb.redirectOutput(out.toFile()).redirectError(err.toFile());
                Process p = pb.start();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    failures.add(example + ": still running after 60 s");
                    continue;
                }
                String stderr = Files.readString(err);
                results.put(example, "exit " + p.exitValue());
                if (p.exitValue() != expected) {
                    failures.add(example + ": exit " + p.exitValue() + ", expected " + expected + "; " + stderr.strip()
                            + " / " + Files.readString(out).strip());
                }
                if (stderr.contains("\tat ") || stderr.contains("Exception")) {
                    failures.add(example + ": a stack trace: " + stderr);
                }
            }
            assertThat(held.isHeld()).isTrue();
        }
        results.forEach((k, v) -> System.out.println(v + "  <-  " + k));
        assertThat(failures).isEmpty();
    }
}
