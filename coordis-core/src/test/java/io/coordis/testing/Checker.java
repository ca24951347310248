package io.coordis.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The referee of a mutual-exclusion run: a TCP server on a free loopback port that workers — threads in
 * this JVM or in child JVMs — tell when they enter and leave their critical section. Every event is
 * judged under one monitor, in the order the referee receives it, on the referee's own clock, so workers
 * in different processes need no common clock.
 *
 * <p>A worker holds the lock from before it reports {@code ENTER} (it waits for the answer) until after
 * it reports {@code EXIT} (again waiting for the answer). So with a correct lock the referee can never see
 * two workers inside at once, and the fencing numbers it sees on {@code ENTER} must strictly increase.
 *
 * <p>Line protocol, one connection per worker thread, every request answered with one line:
 * <pre>
 *   HELLO worker          -> GO   (sent once {@link #go()} was called: a common start)
 *   ENTER worker fence    -> OK
 *   EXIT worker fence     -> OK
 * </pre>
 * Anything else is counted as a protocol error and answered {@code ERR}. Thread-safe.
 */
public final class Checker implements AutoCloseable {
    private static final int MAX_NOTES = 20;

    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final long origin = System.nanoTime();
    private volatile boolean closed;

    // guarded by this
    private final Map<String, Long> inside = new LinkedHashMap<>();
    private final Map<String, Integer> enters = new TreeMap<>();
    private final Set<String> greeted = new TreeSet<>();
    private final List<String> notes = new ArrayList<>();
    private boolean started;
    private boolean anyFence;
    private long highestFence;
    private int events;
    private int overlaps;
    private int fenceRegressions;
    private int protocolErrors;
    private int maxInside;

    public Checker() {
        try {
            server = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind a loopback port for the checker", e);
        }
        acceptor = daemon("checker-accept", this::acceptLoop);
        acceptor.start();
    }

    /** The loopback port workers connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Waits until {@code workers} distinct workers said HELLO, at most {@code timeout}; true if they did. */
    public synchronized boolean awaitGreetings(int workers, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (greeted.size() < workers) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** Answers every pending and future HELLO with GO. */
    public synchronized void go() {
        started = true;
        notifyAll();
    }

    /** What the referee saw so far. */
    public synchronized Report report() {
        return new Report(events, new TreeMap<>(enters), overlaps, fenceRegressions, protocolErrors, maxInside,
                new LinkedHashMap<>(inside), List.copyOf(notes));
    }

    /** Stops listening, closes every worker connection and joins the referee's threads. Idempotent. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        sockets.forEach(Checker::closeQuietly);
        List<Thread> all = new ArrayList<>(threads);
        all.add(acceptor);
        for (Thread t : all) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The verdict.
     *
     * @param enters           ENTER events per worker
     * @param overlaps         ENTERs seen while another worker was inside
     * @param fenceRegressions ENTERs whose fencing number was not above every number seen before
     * @param protocolErrors   malformed lines, EXIT without ENTER, ENTER twice, EXIT with another fence
     * @param maxInside        most workers inside at once
     * @param insideNow        workers inside right now (worker → fence)
     * @param notes            the first violations, described with the referee's time
     */
    public record Report(int events, Map<String, Integer> enters, int overlaps, int fenceRegressions,
                         int protocolErrors, int maxInside, Map<String, Long> insideNow, List<String> notes) {

        public int totalEnters() {
            return enters.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            sockets.add(s);
            daemon("checker-conn-" + s.getPort(), () -> serve(s)).start();
        }
    }

    private void serve(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            String line;
            while ((line = in.readLine()) != null) {
                String answer = handle(line);
                if (answer == null) {
                    return;
                }
                out.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // worker gone or checker closing
        } finally {
            sockets.remove(s);
        }
    }

    private synchronized String handle(String line) throws InterruptedException {
        String[] p = line.trim().split(" ");
        long now = System.nanoTime() - origin;
        try {
            switch (p[0]) {
                case "HELLO" -> {
                    greeted.add(p[1]);
                    notifyAll();
                    while (!started && !closed) {
                        wait(100);
                    }
                    return closed ? null : "GO";
                }
                case "ENTER" -> {
                    enter(p[1], Long.parseLong(p[2]), now);
                    return "OK";
                }
                case "EXIT" -> {
                    exit(p[1], Long.parseLong(p[2]), now);
                    return "OK";
                }
                default -> throw new IllegalArgumentException("unknown request");
            }
        } catch (RuntimeException e) {
            protocolErrors++;
            note(now, "bad request '" + line + "': " + e);
            return "ERR";
        }
    }

    private void enter(String worker, long fence, long now) {
        events++;
        enters.merge(worker, 1, Integer::sum);
        if (inside.containsKey(worker)) {
            protocolErrors++;
            note(now, worker + " entered twice");
        }
        if (!inside.isEmpty()) {
            overlaps++;
            note(now, worker + " (fence " + fence + ") entered while inside: " + inside);
        }
        if (anyFence && fence <= highestFence) {
            fenceRegressions++;
            note(now, worker + " entered with fence " + fence + ", not above " + highestFence);
        }
        highestFence = anyFence ? Math.max(highestFence, fence) : fence;
        anyFence = true;
        inside.put(worker, fence);
        maxInside = Math.max(maxInside, inside.size());
    }

    private void exit(String worker, long fence, long now) {
        events++;
        Long entered = inside.remove(worker);
        if (entered == null || entered != fence) {
            protocolErrors++;
            note(now, worker + " exited with fence " + fence + " but had entered with " + entered);
        }
    }

    private void note(long nanos, String what) {
        if (notes.size() < MAX_NOTES) {
            notes.add(String.format("t=%.3fms #%d %s", nanos / 1e6, events, what));
        }
    }

    private Thread daemon(String name, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
