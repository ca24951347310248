package io.coordis.cli;

import io.coordis.testkit.ContinuousIntegration;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A program of another language's client (redis-py, node-redlock) from {@code interop/}, running as a child
 * process that prints JSON lines on stdout. The clients are Debian's {@code python3-redis} for
 * {@code /usr/bin/python3} and the npm packages {@code interop/node/package-lock.json} pins, installed by
 * {@code .ci/run}; without them a test fails in CI and is skipped elsewhere, saying what to install.
 *
 * <p>On servers whose default user the test kit restricted to the commands Coordis needs, the foreign clients log
 * in as a user of their own, limited to the run's key prefix but not to Coordis's commands: what they send is
 * their libraries' business (node-redlock's acquire script calls {@code EXISTS}, ioredis checks readiness with
 * {@code INFO}), and {@code RequiredCommands} lists what Coordis uses, not what its neighbours do.
 */
final class ForeignClient implements AutoCloseable {
    static final Path PYTHON = Path.of("/usr/bin/python3");
    private static final String USER = "coordis-interop";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Path out;
    private final Path err;
    private final String what;

    private ForeignClient(List<String> command, Map<String, String> env) {
        what = String.join(" ", command.subList(1, command.size()));
        try {
            Path dir = Files.createTempDirectory("coordis-interop");
            out = dir.resolve("stdout");
            err = dir.resolve("stderr");
            ProcessBuilder builder = new ProcessBuilder(command).directory(interop().toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            builder.environment().putAll(env);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** {@code /usr/bin/python3 python/coordis_interop.py args...} with {@code env} (credentials). */
    static ForeignClient python(Map<String, String> env, String... args) {
        requirePython();
        List<String> command = new ArrayList<>(List.of(PYTHON.toString(), "python/coordis_interop.py"));
        command.addAll(List.of(args));
        return new ForeignClient(command, env);
    }

    /** {@code node node/redlock.mjs args...} with {@code env} (credentials). */
    static ForeignClient nodeRedlock(Map<String, String> env, String... args) {
        requireNode();
        List<String> command = new ArrayList<>(List.of(node(), "node/redlock.mjs"));
        command.addAll(List.of(args));
        return new ForeignClient(command, env);
    }

    /** Fails (CI) or skips (elsewhere) unless redis-py imports in /usr/bin/python3. */
    static void requirePython() {
        require(pythonMissing(), "python3-redis for /usr/bin/python3 (apt-get install python3-redis)");
    }

    /** Fails (CI) or skips (elsewhere) unless node and interop/node's packages are installed. */
    static void requireNode() {
        String missing = Files.isDirectory(interop().resolve("node/node_modules/redlock"))
                && Files.isDirectory(interop().resolve("node/node_modules/ioredis")) ? null : "interop/node/node_modules";
        if (node() == null) {
            missing = "node";
        }
        require(missing, "node 20 and node-redlock (cd interop/node && npm ci --no-audit --no-fund)");
    }

    private static void require(String missing, String install) {
        if (missing == null) {
            return;
        }
        String why = "the other languages' clients are not installed (" + missing + "); install " + install
                + ", as .ci/run does";
        Assumptions.assumeTrue(ContinuousIntegration.running(), () -> "skipped outside CI: " + why);
        throw new AssertionError(why);
    }

    private static String pythonMissing() {
        if (!Files.isExecutable(PYTHON)) {
            return PYTHON + " is missing";
        }
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import redis").redirectErrorStream(true).start();
            String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 ? null : "import redis: " + said.lines().reduce((a, b) -> b).orElse("failed");
        } catch (IOException e) {
            return "cannot run " + PYTHON + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static String node() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, "node");
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    /** The repository's {@code interop/} directory, found upwards from the working directory (the module's). */
    static Path interop() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("interop/python/coordis_interop.py"))) {
                return dir.resolve("interop");
            }
        }
        throw new IllegalStateException("no interop/ directory above " + Path.of("").toAbsolutePath());
    }

    /**
     * The environment that logs foreign clients in on {@code servers}: nothing where the default user may do
     * anything, else a user of their own (made on each server as the test kit's administrator) limited to the
     * run's key prefix.
     */
    static Map<String, String> login(List<RedisServer> servers) {
        if (servers.stream().noneMatch(RedisServer::isDefaultUserRestricted)) {
            return Map.of();
        }
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        String p = Prefixed.prefix();
        for (RedisServer server : servers) {
            // Redis 6.2 gives a reset user every channel (acl-pubsub-default allchannels): take that back first
            List<String> rule = new ArrayList<>(List.of("ACL", "SETUSER", USER, "reset", "resetchannels", "on",
                    ">" + password));
            rule.addAll(p.isEmpty() ? List.of("~*", "&*")
                    : List.of("~" + p + "*", "~{" + p + "*", "&" + p + "*", "&{" + p + "*"));
            rule.add("+@all");
            server.command(rule.toArray(String[]::new));
        }
        return Map.of("INTEROP_REDIS_USER", USER, "INTEROP_REDIS_PASSWORD", password);
    }

    /** Everything printed on stdout so far, one JSON object per line. */
    List<Map<String, Object>> lines() {
        List<Map<String, Object>> lines = new ArrayList<>();
        for (String line : read(out).split("\n")) {
            if (!line.isBlank()) {
                lines.add(TestJson.object(line));
            }
        }
        return lines;
    }

    /** Blocks until a line with {@code "event": event} was printed (at most 30 s). */
    Map<String, Object> awaitEvent(String event) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            for (Map<String, Object> line : lines()) {
                if (event.equals(line.get("event"))) {
                    return line;
                }
            }
            if (!process.isAlive()) {
                break;
            }
            Thread.sleep(10);
        }
        throw new AssertionError(what + " did not print event " + event + "\nstdout:\n" + read(out) + "\nstderr:\n"
                + read(err));
    }

    /** Waits for a clean exit (at most 60 s) and answers the final summary line ({@code "event": "done"}). */
    Map<String, Object> done() throws InterruptedException {
        if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(what + " did not exit within " + TIMEOUT + "\nstderr:\n" + read(err));
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(what + " exited " + process.exitValue() + "\nstdout:\n" + read(out)
                    + "\nstderr:\n" + read(err));
        }
        return awaitEvent("done");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
