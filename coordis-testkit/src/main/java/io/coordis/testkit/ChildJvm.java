package io.coordis.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A {@code java} child process running a {@code main} class from this JVM's test class path, for tests
 * that need several processes. Its stdout lines are collected for {@link #awaitLine}; stderr goes to a
 * temporary file shown in failure messages. The child should exit when its stdin closes, so it does not
 * outlive a test JVM that died; {@link #close()} kills it by PID in any case.
 */
public final class ChildJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path stderr;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;
    private volatile boolean stopped;

    private ChildJvm(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(this::readStdout, "child-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code java -cp <test class path> main args...}.
     *
     * @param name a name for messages and thread names
     * @param main the class whose {@code main} the child runs
     * @param args the arguments of {@code main}
     * @return the running child
     * @throws IllegalStateException when the class path seen here does not contain {@code main} (for
     *                               example a manifest-only booter jar), since the child would not start
     */
    public static ChildJvm start(String name, Class<?> main, List<String> args) {
        return start(name, main, List.of(), args);
    }

    /**
     * Starts {@code java <defaults> jvmArgs... -cp <test class path> main args...}; {@code jvmArgs} come after
     * the defaults ({@code -Xmx128m}, serial GC, C1 only), so for example {@code -Xmx256m} there wins.
     *
     * @param name    a name for messages and thread names
     * @param main    the class whose {@code main} the child runs
     * @param jvmArgs options of the child JVM, after the defaults
     * @param args    the arguments of {@code main}
     * @return the running child
     * @throws IllegalStateException as {@link #start(String, Class, List)}
     */
    public static ChildJvm start(String name, Class<?> main, List<String> jvmArgs, List<String> args) {
        return start(name, Path.of(System.getProperty("java.home"), "bin", "java"), main, jvmArgs, args);
    }

    /**
     * Like {@link #start(String, Class, List, List)} on another {@code java} executable (another JDK, say, to run
     * the test classes on a newer Java than the build's).
     *
     * @param name    a name for messages and thread names
     * @param java    the {@code java} executable to run
     * @param main    the class whose {@code main} the child runs
     * @param jvmArgs options of the child JVM, after the defaults
     * @param args    the arguments of {@code main}
     * @return the running child
     */
    public static ChildJvm start(String name, Path java, Class<?> main, List<String> jvmArgs, List<String> args) {
        String classpath = classpath();
        String home = main.getProtectionDomain().getCodeSource().getLocation().getPath();
        if (!classpath.contains(stripSlash(home))) {
            throw new IllegalStateException("test class path does not contain " + home + " (class path: " + classpath
                    + "); configure the test runner not to use a manifest-only jar");
        }
        List<String> command = new ArrayList<>(List.of(
                java.toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", classpath, main.getName()));
        command.addAll(args);
        try {
            Path err = Files.createTempFile("coordis-child-" + name + "-", ".err");
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            return new ChildJvm(name, p, err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start child JVM " + name, e);
        }
    }

    /**
     * The test class path: failsafe/surefire put it in {@code java.class.path} of the forked JVM;
     * {@code surefire.test.class.path} is preferred when present, because with a manifest-only booter jar
     * {@code java.class.path} would name only that jar.
     *
     * @return the class path, as {@code java -cp} takes it
     */
    public static String classpath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    /**
     * The child's process id.
     *
     * @return the PID
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Whether the child still runs.
     *
     * @return {@code true} until it exited
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * The first stdout line starting with {@code prefix}, waiting for it at most {@code timeout}.
     *
     * @param prefix  how the line starts
     * @param timeout how long to wait
     * @return the line
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError       when no such line came in time, with {@link #describe()}
     */
    public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
        return awaitLine(l -> l.startsWith(prefix), timeout)
                .orElseThrow(() -> new AssertionError("child " + name + " printed no line starting with '" + prefix
                        + "' within " + timeout + "; " + describe()));
    }

    /**
     * The first stdout line matching {@code wanted}, or empty after {@code timeout}.
     *
     * @param wanted  which line to wait for
     * @param timeout how long to wait
     * @return the line, or empty when none came in time
     * @throws InterruptedException when interrupted while waiting
     */
    public synchronized Optional<String> awaitLine(Predicate<String> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (String l : lines) {
                if (wanted.test(l)) {
                    return Optional.of(l);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || (!reader.isAlive() && !process.isAlive())) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
        }
    }

    /**
     * Every stdout line so far.
     *
     * @return the lines, oldest first
     */
    public synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    /**
     * Writes one line to the child's stdin.
     *
     * @param line the line, without its line break
     */
    public void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to child " + name, e);
        }
    }

    /** Freezes the child with SIGSTOP; returns once the kernel reports it stopped. */
    public void pause() {
        signal("STOP");
        stopped = true;
        awaitState(true);
    }

    /** Continues the child with SIGCONT. */
    public void resume() {
        signal("CONT");
        stopped = false;
        awaitState(false);
    }

    /** Closes the child's stdin (children that read it until EOF then finish on their own). */
    public void closeInput() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the input of child " + name, e);
        }
    }

    /**
     * Waits for the child to exit on its own; true if it did within {@code timeout}.
     *
     * @param timeout how long to wait
     * @return {@code true} when the child exited in time
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The child's exit code.
     *
     * @return the code
     * @throws IllegalThreadStateException when the child has not exited
     */
    public int exitValue() {
        return process.exitValue();
    }

    /**
     * Name, PID, state, stdout lines and the tail of stderr, for failure messages.
     *
     * @return the description
     */
    public String describe() {
        String err;
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            err = String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException e) {
            err = "(cannot read " + stderr + ")";
        }
        return "child " + name + " pid " + pid() + (process.isAlive() ? " alive" : " exited " + process.exitValue())
                + "\nstdout: " + lines() + "\nstderr tail:\n" + err;
    }

    /** Kills the child (continuing it first if it was stopped) and waits for it to exit. Idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            if (stopped) {
                try {
                    signal("CONT");
                } catch (RuntimeException ignored) {
                    // SIGKILL works on a stopped process too
                }
            }
            process.destroyForcibly();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("child " + name + " (pid " + pid() + ") survived SIGKILL");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException ignored) {
            // a temp file
        }
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = in.readLine()) != null) {
                synchronized (this) {
                    lines.add(l);
                    notifyAll();
                }
            }
        } catch (IOException ignored) {
            // process gone
        } finally {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + pid(), e);
        }
    }

    private void awaitState(boolean wantStopped) {
        Path stat = Path.of("/proc", Long.toString(pid()), "stat");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (Files.exists(stat) && System.nanoTime() < deadline) {
            try {
                String s = Files.readString(stat);
                char state = s.charAt(s.lastIndexOf(')') + 2);
                if ((state == 'T' || state == 't') == wantStopped) {
                    return;
                }
                Thread.sleep(2);
            } catch (IOException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (Files.exists(stat)) {
            throw new IllegalStateException("child " + name + " did not become " + (wantStopped ? "stopped" : "running"));
        }
    }

    private static String stripSlash(String path) {
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    @Override
    public String toString() {
        return "ChildJvm[" + name + ", pid " + pid() + "]";
    }
}
