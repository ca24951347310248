package io.coordis.bench;

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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@link Child} JVM as the runner sees it: started with this JVM's class path, read line by line,
 * answered on stdin, killed by PID on {@link #close()} if it is still running.
 */
final class ChildRun implements AutoCloseable {
    private static final String EOF = "\u0000eof";

    private final String name;
    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private ChildRun(String name, Process process, Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(this::read, "child-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code java <jvmArgs> -cp <this class path> io.coordis.bench.Child args...}. */
    static ChildRun start(String name, List<String> jvmArgs, List<String> args) {
        return start(name, List.of(), jvmArgs, Child.class, args);
    }

    /**
     * Starts {@code <launcher...> java <jvmArgs> -cp <this class path> <main> args...}, e.g. under a launcher that
     * moves the JVM's clock ({@link Faketime#launcher}).
     */
    static ChildRun start(String name, List<String> launcher, List<String> jvmArgs, Class<?> main, List<String> args) {
        List<String> command = new ArrayList<>(launcher);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        try {
            Path err = Files.createTempFile("coordis-bench-", ".err");
            Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
            return new ChildRun(name, p, err);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a child JVM for " + name, e);
        }
    }

    /**
     * Waits for the next line starting with {@code word} (earlier other lines are skipped) and returns the
     * rest of it.
     *
     * @throws IllegalStateException when the child reports a failure, exits, or stays silent past {@code timeout}
     */
    String await(String word, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new IllegalStateException(name + ": no " + word + " within " + timeout.toSeconds() + " s" + tail());
            }
            if (line.equals(EOF)) {
                throw new IllegalStateException(name + ": exited before " + word + tail());
            }
            if (line.startsWith("FAILED")) {
                throw new IllegalStateException(name + ": " + line + tail());
            }
            if (line.startsWith(word)) {
                return line.substring(word.length()).trim();
            }
        }
    }

    void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot write to the child", e);
        }
    }

    /** Waits for a normal exit; false when it did not come within {@code timeout}. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String l;
            while ((l = in.readLine()) != null) {
                lines.add(l);
            }
        } catch (IOException ignored) {
            // the child is gone; EOF below says so
        } finally {
            lines.add(EOF);
        }
    }

    private String tail() {
        try {
            List<String> all = Files.readAllLines(stderr, StandardCharsets.UTF_8);
            List<String> last = all.subList(Math.max(0, all.size() - 15), all.size());
            return last.isEmpty() ? "" : "\n  stderr: " + String.join("\n  ", last);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        try {
            Files.deleteIfExists(stderr);
        } catch (IOException ignored) {
            // a temporary file
        }
    }
}
