package io.coordis.cli.demo;

import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.Program;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One {@code coordis} command the demo runs as a process of its own (same {@code java}, same class path as the
 * running CLI), so that it can be killed for real: {@link #kill()} sends SIGKILL to the JVM and then to every
 * process it had started, so that nothing (a {@code sleep} the command ran) is left behind. The child gets the
 * Redis URL through {@code COORDIS_URL}, never on its command line where {@code ps} would show a password.
 * Its stderr is relayed to the narration, each line prefixed with its name; its stdout lines are kept for
 * {@link #awaitLine}.
 *
 * <p>Not thread-safe except {@link #kill()}, which may also run from a shutdown hook.
 */
final class DemoChild implements AutoCloseable {
    private final String name;
    private final Process process;
    private final BlockingQueue<Optional<String>> stdout = new LinkedBlockingQueue<>();
    private boolean killed;

    private DemoChild(String name, Process process, PrintStream say) {
        this.name = name;
        this.process = process;
        relay(process.getInputStream(), line -> stdout.add(Optional.of(line)), () -> stdout.add(Optional.empty()));
        relay(process.getErrorStream(), line -> say.println("    " + name + "| " + line), () -> { });
    }

    /**
     * Starts {@code coordis args...} against {@code url}.
     *
     * @throws CommandFailure (exit 70) when no JVM can be started
     */
    static DemoChild start(String name, String url, PrintStream say, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), Program.MAIN_CLASS));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(devNull()));
        builder.environment().put(GlobalOptions.URL_ENV, url);
        builder.environment().remove(GlobalOptions.KEY_PREFIX_ENV); // the demo's own Redis: no prefix
        builder.environment().put("NO_COLOR", "1");
        try {
            return new DemoChild(name, builder.start(), say);
        } catch (IOException e) {
            throw new CommandFailure(ExitCodes.SOFTWARE, "demo: cannot start a second JVM for " + name + ": "
                    + e.getMessage(), e);
        }
    }

    private static File devNull() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static void relay(InputStream stream, Consumer<String> line, Runnable end) {
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String l = in.readLine(); l != null; l = in.readLine()) {
                    line.accept(l);
                }
            } catch (IOException e) {
                // the process is gone
            } finally {
                end.run();
            }
        }, "coordis-demo-relay");
        t.setDaemon(true);
        t.start();
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the next line the child prints on stdout.
     *
     * @throws CommandFailure (exit 70) when it printed nothing within {@code timeout} or exited first
     */
    String awaitLine(Duration timeout) throws InterruptedException {
        Optional<String> line = stdout.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null || line.isEmpty()) {
            String why = line == null ? "printed nothing within " + timeout.toSeconds() + " s"
                    : "exited" + (process.isAlive() ? "" : " with status " + exitValue());
            throw new CommandFailure(ExitCodes.SOFTWARE, "demo: " + name + " (pid " + pid() + ") " + why);
        }
        return line.get();
    }

    private int exitValue() {
        try {
            return process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /**
     * SIGKILL to the JVM first (so it cannot resign, ack or say goodbye), then to every process it had started,
     * and waits until all of them are gone.
     *
     * @return the pids of the processes it had started (the JVM's own is {@link #pid()})
     */
    synchronized List<Long> kill() {
        if (killed) {
            return List.of();
        }
        killed = true;
        List<ProcessHandle> started = process.descendants().toList();
        process.destroyForcibly(); // SIGKILL
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new CommandFailure(ExitCodes.SOFTWARE, "demo: " + name + " (pid " + pid()
                        + ") still runs 10 s after SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Long> pids = new ArrayList<>();
        for (ProcessHandle p : started) {
            p.destroyForcibly();
            pids.add(p.pid());
        }
        // Polled: onExit() of a process that is not our child polls slowly (seconds); these are gone in ms.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!started.stream().allMatch(DemoChild::dead) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return pids;
    }

    /**
     * Whether {@code p} has ended: gone, or (Linux) a zombie that its new parent has not reaped yet — an
     * orphan's reaper may take a second or more, and a zombie runs nothing.
     */
    private static boolean dead(ProcessHandle p) {
        if (!p.isAlive()) {
            return true;
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            int afterName = stat.lastIndexOf(')');
            return afterName > 0 && stat.length() > afterName + 2 && stat.charAt(afterName + 2) == 'Z';
        } catch (IOException | RuntimeException e) {
            return !p.isAlive(); // no /proc (not Linux), or the process is gone
        }
    }

    /** Kills the child and what it started, if that has not happened yet. */
    @Override
    public void close() {
        kill();
    }
}
