package io.coordis.testkit.fault;

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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The referee of a safety run: a resource that lock holders and leaders (threads here or in other processes)
 * enter, write to and leave, with one clock and one monitor, reached over loopback TCP so that child JVMs and
 * CLI processes can use it. It accepts a write only with a fencing token at least as high as every token it
 * accepted before, and judges:
 * <ul>
 *   <li><b>unfenced overlaps</b>: an {@code ENTER} while another client is inside — what a resource without
 *       fencing would suffer. They are expected when a holder is paused past its lease (that is the proof
 *       that a pause bit), and must be 0 among holders that were never paused;</li>
 *   <li><b>fence regressions</b>: an {@code ENTER} whose token is not above every token entered before — two
 *       holders (or leaders) given one token, or tokens going down. Must be 0 for a lock or election that
 *       hands out a fencing token;</li>
 *   <li><b>stale rejections</b>: writes refused because a higher token was accepted before — the fence
 *       working as designed;</li>
 *   <li><b>fenced violations</b>: writes the fence cannot order: a token equal to the highest accepted one
 *       but from a different client (two holders were handed the same token). Must be 0.</li>
 * </ul>
 * A reader of a read-write lock (or a holder of a shared hold of any kind) enters with {@code SHARE} instead of
 * {@code ENTER}: readers may be inside together, so a {@code SHARE} is an overlap only while an exclusive holder is
 * inside, and an {@code ENTER} while anybody (reader or writer) is inside. Readers draw their numbers from one
 * counter but enter in any order, so a {@code SHARE} is a fence regression only when its token is not above every
 * token an exclusive holder entered with.
 *
 * <p>Line protocol, one connection per client thread, every request answered with one line:
 * <pre>
 *   HELLO client 0       -> GO         (once {@link #go()} was called: a common start)
 *   ENTER client token   -> OK         (the client believes it holds the lock, or leads)
 *   SHARE client token   -> OK         (the client believes it holds a shared hold: a read lock)
 *   WRITE client token   -> OK | STALE
 *   EXIT client token    -> OK         (it no longer believes so)
 * </pre>
 * Anything else is answered {@code ERR} and counted as a protocol error. A resource made by
 * {@link #recording()} also keeps every event in order, with its time, for tests that wait for one or look
 * at what happened after a fault. Thread-safe.
 */
public final class FencedResource implements AutoCloseable {
    /** Notes kept per kind of anomaly, so a flood of one kind cannot hide the first of another. */
    private static final int MAX_NOTES_PER_KIND = 12;

    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final long origin = System.nanoTime();
    private final boolean recording;
    private volatile boolean closed;

    // guarded by this
    private final Map<String, Long> inside = new LinkedHashMap<>();
    private final Map<String, Integer> enters = new TreeMap<>();
    private final List<String> notes = new ArrayList<>();
    private final Set<String> greeted = new TreeSet<>();
    private final List<Event> events = new ArrayList<>();
    private boolean started;
    private boolean anyEntered;
    private long highestEntered;
    private boolean anyExclusive;
    private long highestExclusive;
    private final Set<String> sharing = new TreeSet<>();
    private long fenceRegressions;
    private final Map<String, Integer> notesPerKind = new HashMap<>();
    private boolean anyAccepted;
    private long highest;
    private String highestOwner;
    private long accepted;
    private long stale;
    private long overlaps;
    private final Map<java.util.Set<String>, Long> overlapsByParticipants = new HashMap<>();
    private long violations;
    private long protocolErrors;
    private int maxInside;
    private long lastAcceptNanos = -1;
    private long[] acceptTimes = new long[1024];
    private int acceptCount;

    private FencedResource(boolean recording) {
        this.recording = recording;
        try {
            server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind a loopback port for the fenced resource", e);
        }
        acceptor = daemon("fenced-resource-accept", this::acceptLoop);
        acceptor.start();
    }

    /**
     * Starts a resource on a free loopback port.
     *
     * @return the running resource; close it to stop
     */
    public static FencedResource start() {
        return new FencedResource(false);
    }

    /**
     * Starts a resource that also keeps every event ({@link #events()}); for runs of bounded length.
     *
     * @return the running resource; close it to stop
     */
    public static FencedResource recording() {
        return new FencedResource(true);
    }

    /**
     * One request as the resource received it, in its order and on its clock.
     *
     * @param verb     {@code ENTER}, {@code SHARE}, {@code WRITE} or {@code EXIT}
     * @param nanos    {@link System#nanoTime()} when it was judged
     * @param accepted for a write, whether it was accepted; {@code true} otherwise
     */
    public record Event(String client, String verb, long token, long nanos, boolean accepted) {
    }

    /**
     * Waits until {@code clients} distinct clients said HELLO, at most {@code timeout}; true if they did.
     *
     * @param clients how many clients must have said HELLO
     * @param timeout how long to wait
     * @return {@code true} when they did in time
     * @throws InterruptedException when interrupted while waiting
     */
    public synchronized boolean awaitGreetings(int clients, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (greeted.size() < clients) {
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

    /**
     * Every event so far (empty unless {@link #recording()}).
     *
     * @return the events, oldest first
     */
    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /**
     * The events of one verb so far (empty unless {@link #recording()}).
     *
     * @param verb the verb, e.g. {@code WRITE}
     * @return its events, oldest first
     */
    public synchronized List<Event> events(String verb) {
        return events.stream().filter(e -> e.verb().equals(verb)).toList();
    }

    /**
     * Waits at most {@code timeout} for the first event at or after index {@code from} with {@code verb} and, unless
     * {@code client} is null, from {@code client} (only when {@link #recording()}).
     *
     * @param from    the index of the first event to look at
     * @param verb    the verb, e.g. {@code WRITE}
     * @param client  the client to wait for; null for any
     * @param timeout how long to wait
     * @return the event, or empty when none came in time
     * @throws InterruptedException when interrupted while waiting
     */
    public synchronized Optional<Event> await(int from, String verb, String client, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (int i = from; i < events.size(); i++) {
                Event e = events.get(i);
                if (e.verb().equals(verb) && (client == null || e.client().equals(client))) {
                    return Optional.of(e);
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return Optional.empty();
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /**
     * The loopback port clients connect to.
     *
     * @return the port
     */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * {@code 127.0.0.1:port}, for child processes.
     *
     * @return the address
     */
    public String address() {
        return InetAddress.getLoopbackAddress().getHostAddress() + ":" + port();
    }

    /**
     * ENTER in this JVM, without a connection (same judgement as over TCP).
     *
     * @param client the client's name
     * @param token  the fencing number of the hold
     */
    public synchronized void enter(String client, long token) {
        enter(client, token, false);
    }

    /**
     * SHARE in this JVM: a shared hold (a reader), which only an exclusive holder inside conflicts with.
     *
     * @param client the client's name
     * @param token  the fencing number of the hold
     */
    public synchronized void share(String client, long token) {
        enter(client, token, true);
    }

    private void enter(String client, long token, boolean shared) {
        long now = System.nanoTime() - origin;
        enters.merge(client, 1, Integer::sum);
        if (inside.containsKey(client)) {
            protocolErrors++;
            note(now, "twice", client + " entered twice");
        }
        boolean regression = shared ? anyExclusive && token <= highestExclusive : anyEntered && token <= highestEntered;
        if (regression) {
            fenceRegressions++;
            note(now, "regression", client + " entered with token " + token + ", not above "
                    + (shared ? highestExclusive : highestEntered));
        }
        highestEntered = anyEntered ? Math.max(highestEntered, token) : token;
        anyEntered = true;
        if (!shared) {
            highestExclusive = anyExclusive ? Math.max(highestExclusive, token) : token;
            anyExclusive = true;
        }
        if (shared ? sharing.size() < inside.size() : !inside.isEmpty()) {
            overlaps++;
            java.util.Set<String> participants = new java.util.TreeSet<>(inside.keySet());
            participants.add(client);
            overlapsByParticipants.merge(participants, 1L, Long::sum);
            note(now, "overlap", client + " (token " + token + ") entered while inside: " + inside);
        }
        inside.put(client, token);
        if (shared) {
            sharing.add(client);
        }
        maxInside = Math.max(maxInside, inside.size());
        record(client, shared ? "SHARE" : "ENTER", token, true);
    }

    /**
     * The unfenced overlaps in which every client involved (the one entering and all those inside) passes
     * {@code clients}: for example those among the holders that were never paused.
     *
     * @param clients which clients count
     * @return the number of such overlaps
     */
    public synchronized long overlapsAmong(java.util.function.Predicate<String> clients) {
        long n = 0;
        for (Map.Entry<java.util.Set<String>, Long> e : overlapsByParticipants.entrySet()) {
            if (e.getKey().stream().allMatch(clients)) {
                n += e.getValue();
            }
        }
        return n;
    }

    /**
     * WRITE in this JVM: true when accepted.
     *
     * @param client the client's name
     * @param token  the fencing number of the write
     * @return {@code true} when accepted, {@code false} when refused as stale
     */
    public synchronized boolean write(String client, long token) {
        long now = System.nanoTime() - origin;
        if (anyAccepted && token < highest) {
            stale++;
            record(client, "WRITE", token, false);
            return false;
        }
        if (anyAccepted && token == highest && !client.equals(highestOwner)) {
            violations++;
            note(now, "violation", client + " wrote with token " + token + ", which " + highestOwner + " holds too");
        }
        anyAccepted = true;
        highest = token;
        highestOwner = client;
        accepted++;
        lastAcceptNanos = System.nanoTime();
        if (acceptCount == acceptTimes.length) {
            acceptTimes = java.util.Arrays.copyOf(acceptTimes, acceptCount * 2);
        }
        acceptTimes[acceptCount++] = lastAcceptNanos;
        record(client, "WRITE", token, true);
        return true;
    }

    /**
     * EXIT in this JVM.
     *
     * @param client the client's name
     * @param token  the fencing number the hold entered with
     */
    public synchronized void exit(String client, long token) {
        long now = System.nanoTime() - origin;
        Long entered = inside.remove(client);
        sharing.remove(client);
        if (entered == null || entered != token) {
            protocolErrors++;
            note(now, "exit", client + " exited with token " + token + " but had entered with " + entered);
        }
        record(client, "EXIT", token, true);
    }

    /**
     * {@link System#nanoTime()} of the last accepted write, or -1 if none.
     *
     * @return the time, or -1
     */
    public synchronized long lastAcceptNanos() {
        return lastAcceptNanos;
    }

    /**
     * {@link System#nanoTime()} of the first write accepted at or after {@code nanos}, or -1 if none: how soon
     * work resumed after a fault was healed.
     *
     * @param nanos a {@link System#nanoTime()} reading
     * @return the time, or -1
     */
    public synchronized long firstAcceptAfter(long nanos) {
        int lo = 0;
        int hi = acceptCount;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (acceptTimes[mid] < nanos) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < acceptCount ? acceptTimes[lo] : -1;
    }

    /**
     * What the resource saw so far.
     *
     * @return the report
     */
    public synchronized Report report() {
        return new Report(new TreeMap<>(enters), accepted, stale, overlaps, fenceRegressions, violations, protocolErrors,
                maxInside, highest, new LinkedHashMap<>(inside), List.copyOf(notes));
    }

    /**
     * The verdict.
     *
     * @param enters          ENTERs per client
     * @param accepted        writes accepted
     * @param staleRejections writes refused as stale (the fence working)
     * @param overlaps         ENTERs while another client was inside (what an unfenced resource would suffer)
     * @param fenceRegressions ENTERs whose token was not above every token entered before
     * @param violations       accepted writes with a token another client also wrote with (must be 0)
     * @param protocolErrors   malformed requests, EXIT without ENTER, ENTER twice
     * @param maxInside        most clients inside at once (readers together count each)
     * @param highestToken     the highest token accepted
     * @param insideNow        the clients inside right now, with the token each entered with
     * @param notes            the first anomalies, with the resource's time
     */
    public record Report(Map<String, Integer> enters, long accepted, long staleRejections, long overlaps,
                         long fenceRegressions, long violations, long protocolErrors, int maxInside, long highestToken,
                         Map<String, Long> insideNow, List<String> notes) {
        /**
         * Every client's enters added up.
         *
         * @return the number of enters
         */
        public int totalEnters() {
            return enters.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    /** Stops listening and closes every client connection. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
            daemon("fenced-resource-" + s.getPort(), () -> serve(s)).start();
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
            // client gone (killed) or resource closing
        } finally {
            sockets.remove(s);
        }
    }

    private String handle(String line) throws InterruptedException {
        String[] p = line.trim().split(" ");
        try {
            if (p.length != 3) {
                throw new IllegalArgumentException("expected: VERB client token");
            }
            long token = Long.parseLong(p[2]);
            return switch (p[0]) {
                case "HELLO" -> greet(p[1]);
                case "ENTER" -> {
                    enter(p[1], token);
                    yield "OK";
                }
                case "SHARE" -> {
                    share(p[1], token);
                    yield "OK";
                }
                case "WRITE" -> write(p[1], token) ? "OK" : "STALE";
                case "EXIT" -> {
                    exit(p[1], token);
                    yield "OK";
                }
                default -> throw new IllegalArgumentException("unknown verb");
            };
        } catch (RuntimeException e) {
            synchronized (this) {
                protocolErrors++;
                note(System.nanoTime() - origin, "request", "bad request '" + line + "': " + e.getMessage());
            }
            return "ERR";
        }
    }

    /** Records the greeting and waits for {@link #go()}: GO, or null when the resource closed first. */
    private synchronized String greet(String client) throws InterruptedException {
        greeted.add(client);
        notifyAll();
        while (!started && !closed) {
            wait(100);
        }
        return closed ? null : "GO";
    }

    private void record(String client, String verb, long token, boolean accepted) {
        if (recording) {
            events.add(new Event(client, verb, token, System.nanoTime(), accepted));
            notifyAll();
        }
    }

    private void note(long nanos, String kind, String what) {
        if (notesPerKind.merge(kind, 1, Integer::sum) <= MAX_NOTES_PER_KIND) {
            notes.add(String.format("t=%.3fms %s", nanos / 1e6, what));
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }
}
