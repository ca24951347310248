package io.coordis.testkit.fault;

import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

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
    private final LineServer server;
    private final EventLog events = new EventLog();
    private final boolean recording;
    private volatile boolean closed;

    // guarded by this
    private final Map<String, Long> inside = new LinkedHashMap<>();
    private final Map<String, Integer> enters = new TreeMap<>();
    private final Notes notes = new Notes();
    private final Set<String> greeted = new TreeSet<>();
    private boolean started;
    private boolean anyEntered;
    private long highestEntered;
    private boolean anyExclusive;
    private long highestExclusive;
    private final Set<String> sharing = new TreeSet<>();
    private long fenceRegressions;
    private boolean anyAccepted;
    private long highest;
    private String highestOwner;
    private long accepted;
    private long stale;
    private long overlaps;
    private final Map<Set<String>, Long> overlapsByParticipants = new HashMap<>();
    private long violations;
    private long protocolErrors;
    private int maxInside;
    private final AcceptTimes acceptTimes = new AcceptTimes();

    private FencedResource(boolean recording) {
        this.recording = recording;
        this.server = new LineServer(this);
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
    public List<Event> events() {
        return events.all();
    }

    /**
     * The events of one verb so far (empty unless {@link #recording()}).
     *
     * @param verb the verb, e.g. {@code WRITE}
     * @return its events, oldest first
     */
    public List<Event> events(String verb) {
        return events.of(verb);
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
    public Optional<Event> await(int from, String verb, String client, Duration timeout) throws InterruptedException {
        return events.await(from, verb, client, timeout);
    }

    /**
     * The loopback port clients connect to.
     *
     * @return the port
     */
    public int port() {
        return server.port();
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
        long now = notes.now();
        enters.merge(client, 1, Integer::sum);
        if (inside.containsKey(client)) {
            protocolErrors++;
            notes.add(now, "twice", client + " entered twice");
        }
        boolean regression = shared ? anyExclusive && token <= highestExclusive : anyEntered && token <= highestEntered;
        if (regression) {
            fenceRegressions++;
            notes.add(now, "regression", client + " entered with token " + token + ", not above "
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
            Set<String> participants = new TreeSet<>(inside.keySet());
            participants.add(client);
            overlapsByParticipants.merge(participants, 1L, Long::sum);
            notes.add(now, "overlap", client + " (token " + token + ") entered while inside: " + inside);
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
    public synchronized long overlapsAmong(Predicate<String> clients) {
        long n = 0;
        for (Map.Entry<Set<String>, Long> e : overlapsByParticipants.entrySet()) {
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
        long now = notes.now();
        if (anyAccepted && token < highest) {
            stale++;
            record(client, "WRITE", token, false);
            return false;
        }
        if (anyAccepted && token == highest && !client.equals(highestOwner)) {
            violations++;
            notes.add(now, "violation", client + " wrote with token " + token + ", which " + highestOwner + " holds too");
        }
        anyAccepted = true;
        highest = token;
        highestOwner = client;
        accepted++;
        acceptTimes.add(System.nanoTime());
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
        long now = notes.now();
        Long entered = inside.remove(client);
        sharing.remove(client);
        if (entered == null || entered != token) {
            protocolErrors++;
            notes.add(now, "exit", client + " exited with token " + token + " but had entered with " + entered);
        }
        record(client, "EXIT", token, true);
    }

    /**
     * {@link System#nanoTime()} of the last accepted write, or -1 if none.
     *
     * @return the time, or -1
     */
    public synchronized long lastAcceptNanos() {
        return acceptTimes.last();
    }

    /**
     * {@link System#nanoTime()} of the first write accepted at or after {@code nanos}, or -1 if none: how soon
     * work resumed after a fault was healed.
     *
     * @param nanos a {@link System#nanoTime()} reading
     * @return the time, or -1
     */
    public synchronized long firstAcceptAfter(long nanos) {
        return acceptTimes.firstAtOrAfter(nanos);
    }

    /**
     * What the resource saw so far.
     *
     * @return the report
     */
    public synchronized Report report() {
        return new Report(new TreeMap<>(enters), accepted, stale, overlaps, fenceRegressions, violations, protocolErrors,
                maxInside, highest, new LinkedHashMap<>(inside), notes.list());
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
        server.close();
    }

    /** Counts a malformed request as a protocol error and notes it. */
    synchronized void badRequest(String line, RuntimeException e) {
        protocolErrors++;
        notes.add(notes.now(), "request", "bad request '" + line + "': " + e.getMessage());
    }

    /** Records the greeting and waits for {@link #go()}: GO, or null when the resource closed first. */
    synchronized String greet(String client) throws InterruptedException {
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
        }
    }
}
