package io.coordis.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code coordis} running in a JVM of its own, as users run it, with stdout and stderr captured
 * separately in files. (Files, not pipes: when a process exits, the JDK drains and closes its pipes, so
 * what a grandchild writes while the CLI shuts down could be lost.) Closing it kills the process if it
 * still runs.
 */
final class CliProcess implements AutoCloseable {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path out;
    private final Path err;

    private CliProcess(List<String> command, Map<String, String> env) {
        this(command, env, null);
    }

    private CliProcess(List<String> command, Map<String, String> env, String stdin) {
        try {
            Path dir = Files.createTempDirectory("coordis-cli-it");
            out = dir.resolve("stdout");
            err = dir.resolve("stderr");
            File input = new File("/dev/null");
            if (stdin != null) {
                input = Files.writeString(dir.resolve("stdin"), stdin, StandardCharsets.UTF_8).toFile();
            }
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(input))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            builder.environment().remove(CoordisCommand.URL_ENV);
            // the test run's key prefix, as the library clients of the tests have it
            builder.environment().put(CoordisCommand.KEY_PREFIX_ENV, io.coordis.testkit.Prefixed.prefix());
            if (!env.containsKey("NO_COLOR")) {
                builder.environment().remove("NO_COLOR"); // colour tests decide for themselves
            }
            builder.environment().putAll(env);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }
    /** {@code java -cp <test class path> io.coordis.cli.Main args...}. */
    static CliProcess start(String... args) {
        return startWithEnv(Map.of(), args);
    }

    /** Like {@link #start(String...)} with one more environment variable. */
    static CliProcess startWithEnv(String name, String value, String... args) {
        return startWithEnv(Map.of(name, value), args);
    }

    /** Like {@link #start(String...)} with {@code stdin} (UTF-8) as standard input. */
    static CliProcess startWithInput(String stdin, String... args) {
        return new CliProcess(mainCommand(args), Map.of(), stdin);
    }

    /**
     * Like {@link #start(String...)} with standard input opened by the shell ({@code < path}), so it can be
     * something Java itself refuses to open, such as a directory.
     */
    static CliProcess startWithStdinFrom(String path, String... args) {
        List<String> command = new ArrayList<>(List.of("sh", "-c", "f=$1; shift; exec \"$@\" < \"$f\"", "sh", path));
        command.addAll(mainCommand(args));
        return new CliProcess(command, Map.of());
    }

    private static CliProcess startWithEnv(Map<String, String> env, String... args) {
        return new CliProcess(mainCommand(args), env);
    }

    private static List<String> mainCommand(String... args) {
        List<String> command = java();
        command.add("-cp");
        command.add(testClassPath());
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        return command;
    }

    /**
     * {@code coordis args...} on a pseudo-terminal of its own, as when a person runs it: {@code script(1)}
     * gives it a terminal for stdin and stdout; {@code typed} is what the person types (echoed back, as a
     * terminal does). Everything it prints, stdout and stderr, arrives on {@link #stdout()}.
     */
    static CliProcess startInTerminal(String typed, Map<String, String> env, String... args) {
        StringBuilder line = new StringBuilder();
        for (String word : mainCommand(args)) {
            line.append(line.length() == 0 ? "" : " ").append('\'').append(word.replace("'", "'\\''")).append('\'');
        }
        return new CliProcess(List.of("script", "-qec", line.toString(), "/dev/null"), env, typed);
    }

    /** {@code java -jar coordis.jar args...}, the fat jar the build produced. */
    static CliProcess startJar(Path jar, String... args) {
        List<String> command = java();
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        return new CliProcess(command, Map.of());
    }

    /** The fat jar, when the build has produced it (failsafe passes its path). */
    static Path fatJar() {
        String path = System.getProperty("coordis.cli.jar");
        return path == null ? null : Path.of(path);
    }

    private static List<String> java() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        return command;
    }

    private static String testClassPath() {
        String surefire = System.getProperty("surefire.test.class.path");
        String path = surefire != null && !surefire.isBlank() ? surefire : System.getProperty("java.class.path");
        if (!path.contains("picocli")) {
            throw new IllegalStateException("the test class path lacks picocli: " + path);
        }
        return path;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Sends SIGINT to the CLI itself, as Ctrl-C in a terminal does. */
    void interrupt() {
        try {
            Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new AssertionError("kill -INT " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Sends SIGTERM to the CLI itself. */
    void terminate() {
        process.destroy();
    }

    /** Waits for the exit (at most 30 s); answers the exit status. */
    int exitCode() {
        return exitCode(DEFAULT_TIMEOUT);
    }

    int exitCode(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("coordis did not exit within " + timeout + "\nstdout:\n" + stdout()
                        + "\nstderr:\n" + stderr());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        return process.exitValue();
    }

    String stdout() {
        return read(out);
    }

    String stderr() {
        return read(err);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Blocks until stdout contains {@code text} (at most 30 s). */
    CliProcess awaitStdout(String text) {
        return await(this::stdout, text, "stdout");
    }

    /** Blocks until stderr contains {@code text} (at most 30 s). */
    CliProcess awaitStderr(String text) {
        return await(this::stderr, text, "stderr");
    }

    private CliProcess await(Supplier<String> stream, String text, String name) {
        long deadline = System.nanoTime() + DEFAULT_TIMEOUT.toNanos();
        while (!stream.get().contains(text)) {
            if (System.nanoTime() > deadline || (!process.isAlive() && !stream.get().contains(text))) {
                throw new AssertionError("coordis did not print '" + text + "' on " + name + "\nstdout:\n" + stdout()
                        + "\nstderr:\n" + stderr() + (process.isAlive() ? "" : "\nexit status " + process.exitValue()));
            }
            sleep(20);
        }
        return this;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** A file path that does not exist yet, for commands that wait for the test to create it. */
    static Path signalFile() {
        try {
            Path dir = Files.createTempDirectory("coordis-cli-it");
            dir.toFile().deleteOnExit();
            return dir.resolve("go");
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
