package io.coordis.spring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code java} child process running a {@code main} class of the test class path (as core's tests do), with
 * its stdout lines collected. The child exits when its stdin closes, so it does not outlive a dead test JVM;
 * {@link #kill()} sends SIGKILL.
 */
final class ChildProcess implements AutoCloseable {
    private final Process process;
    private final Path stderr;
    private final List<String> lines = new ArrayList<>();

    private ChildProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::read, "child-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    static ChildProcess start(Class<?> main, String... args) throws IOException {
        String cp = System.getProperty("surefire.test.class.path");
        String classpath = cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classpath, main.getName()));
        command.addAll(List.of(args));
        Path err = Files.createTempFile("coordis-spring-child-", ".err");
        return new ChildProcess(new ProcessBuilder(command).redirectError(err.toFile()).start(), err);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = in.readLine()) != null) {
                synchronized (this) {
                    lines.add(l);
                    notifyAll();
                }
            }
        } catch (IOException ignored) {
            // the child is gone
        }
        synchronized (this) {
            notifyAll();
        }
    }

    synchronized List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits until a stdout line starts with {@code prefix}; fails with the child's stderr after {@code timeout}. */
    synchronized void awaitLine(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (lines.stream().noneMatch(l -> l.startsWith(prefix))) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !process.isAlive()) {
                throw new AssertionError("the child printed no line starting with '" + prefix + "' within " + timeout
                        + (process.isAlive() ? "" : " (it exited)") + "; stdout " + lines + "; stderr:\n" + stderrTail());
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
        }
    }

    /** SIGKILL: no shutdown hook, no resignation, no consumer close. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the child (pid " + process.pid() + ") survived SIGKILL");
        }
    }

    private String stderrTail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - 30), all.size()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            kill();
        }
        Files.deleteIfExists(stderr);
    }
}
