package io.coordis.redis.runner;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Process, port and file routines of the runner, public for the test kit built on it. Owns the JVM shutdown hook
 * that kills every redis-server still registered, so no server outlives the JVM after a normal exit or Ctrl-C.
 * (Nothing can clean up after {@code kill -9} of the JVM itself.) All methods are safe from any thread.
 */
public final class ProcessSupport {

    private static final Map<Process, Path> LIVE = new ConcurrentHashMap<>();
    private static final Deque<Integer> RECENT_PORTS = new ArrayDeque<>();
    private static final int RECENT_PORTS_KEPT = 256;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessSupport::killAll, "coordis-redis-reaper"));
    }

    private ProcessSupport() {
    }

    /** Registers a child process (and the directory to delete with it) for the shutdown hook. */
    static void register(Process process, Path dir) {
        LIVE.put(process, dir);
    }

    static void unregister(Process process) {
        LIVE.remove(process);
    }

    private static void killAll() {
        List<Process> processes = new ArrayList<>(LIVE.keySet());
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            Path dir = LIVE.remove(p);
            if (dir != null) {
                deleteRecursively(dir);
            }
        }
    }

    /**
     * A loopback port that was free a moment ago. Ports handed out recently by this JVM are skipped,
     * so parallel starts do not race for the same number; another process can still take it, which
     * callers handle by retrying.
     *
     * @return the port
     */
    public static int freePort() {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind a free loopback port", e);
            }
            synchronized (RECENT_PORTS) {
                if (!RECENT_PORTS.contains(port)) {
                    RECENT_PORTS.addLast(port);
                    if (RECENT_PORTS.size() > RECENT_PORTS_KEPT) {
                        RECENT_PORTS.removeFirst();
                    }
                    return port;
                }
            }
        }
        throw new IllegalStateException("no free loopback port found after 50 attempts");
    }

    /**
     * The absolute path of the executable {@code name} in the first directory of the {@code PATH} holding one, or
     * {@code null}.
     *
     * @param name the executable's file name
     * @return its absolute path, or {@code null} when no directory of the {@code PATH} holds it
     */
    public static Path findOnPath(String name) {
        String pathEnv = System.getenv("PATH");
        if (pathEnv == null) {
            return null;
        }
        for (String dir : pathEnv.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Paths.get(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        return null;
    }

    /** Sends a signal ({@code "STOP"}, {@code "CONT"}, ...) using the system {@code kill} command. */
    static void signal(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true).start();
            String out = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid + " did not exit within 10s");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed with exit code "
                        + kill.exitValue() + ": " + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, e);
        }
    }

    /**
     * On Linux, blocks until /proc reports the process as stopped ({@code T}) or not stopped, at most
     * {@code timeout}. Elsewhere returns immediately.
     */
    static void awaitStopped(long pid, boolean stopped, Duration timeout) {
        Path stat = Paths.get("/proc", Long.toString(pid), "stat");
        if (!Files.exists(stat)) {
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String s = Files.readString(stat);
                char state = s.charAt(s.lastIndexOf(')') + 2);
                boolean isStopped = state == 'T' || state == 't';
                if (isStopped == stopped) {
                    return;
                }
            } catch (IOException | RuntimeException e) {
                return;
            }
            sleep(Duration.ofMillis(5));
        }
    }

    /** Blocks until the process exits, at most {@code timeout}; true if it exited. */
    static boolean waitFor(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    /**
     * Sleeps for {@code d}.
     *
     * @param d how long to sleep
     * @throws IllegalStateException if interrupted (the thread's interrupt flag is set again)
     */
    public static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sleeping", e);
        }
    }

    /**
     * The last {@code lines} lines of a text file, or a note if it cannot be read.
     *
     * @param file  the file to read
     * @param lines how many lines to keep from its end
     * @return the lines, or a note saying why the file could not be read
     */
    public static String tail(Path file, int lines) {
        try {
            if (!Files.exists(file)) {
                return "(" + file.getFileName() + " does not exist)";
            }
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    /**
     * Deletes {@code dir} and everything below it, as far as it can; never throws.
     *
     * @param dir the directory to delete
     */
    public static void deleteRecursively(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // best effort
                }
            });
        } catch (IOException | UncheckedIOException ignored) {
            // best effort
        }
    }
}
