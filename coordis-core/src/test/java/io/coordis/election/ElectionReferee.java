package io.coordis.election;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A TCP referee for election runs across processes, and the fenced resource their leaders write to.
 * Candidates send one line per event and wait for the answer, so an event is recorded (with the
 * referee's own arrival time) before the candidate goes on:
 * <pre>
 *   &lt;id&gt; HELLO 0          a candidate connected               → OK
 *   &lt;id&gt; ELECTED &lt;term&gt;    it campaigned and won               → OK
 *   &lt;id&gt; REVOKED &lt;term&gt;    it learnt its leadership is over    → OK
 *   &lt;id&gt; WRITE &lt;term&gt;      a fenced write                      → OK or REJECTED
 *   &lt;id&gt; ACT 0            work done as leader (no fencing)    → OK
 * </pre>
 * The fenced resource accepts a write whose term is above the highest it accepted, or equal to it from
 * the same id; anything else is stale and rejected. A closed connection is recorded as {@code GONE}.
 */
final class ElectionReferee implements AutoCloseable {

    /** One recorded event; {@code accepted} only means something for writes. */
    record Event(String id, String kind, long term, long nanos, boolean accepted) {
    }

    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Event> events = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private long highestAccepted;
    private String highestAcceptedId;
    private volatile boolean closed;

    ElectionReferee() {
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        acceptor = new Thread(this::accept, "referee-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                synchronized (this) {
                    sockets.add(s);
                }
                Thread t = new Thread(() -> serve(s), "referee-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        String id = "?";
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
            OutputStream out = s.getOutputStream();
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.split(" ");
                id = p[0];
                String answer = record(p[0], p[1], Long.parseLong(p[2]));
                out.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            // the candidate died
        } finally {
            record(id, "GONE", 0);
        }
    }

    private synchronized String record(String id, String kind, long term) {
        boolean accepted = true;
        if (kind.equals("WRITE")) {
            accepted = term > highestAccepted || (term == highestAccepted && id.equals(highestAcceptedId));
            if (accepted) {
                highestAccepted = term;
                highestAcceptedId = id;
            }
        }
        events.add(new Event(id, kind, term, System.nanoTime(), accepted));
        notifyAll();
        return accepted ? "OK" : "REJECTED";
    }

    synchronized List<Event> events() {
        return List.copyOf(events);
    }

    synchronized List<Event> events(String kind) {
        return events.stream().filter(e -> e.kind().equals(kind)).toList();
    }

    /** Waits for the first event after index {@code from} matching {@code kind} (and id, if not null). */
    synchronized Optional<Event> await(int from, String kind, String id, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            for (int i = from; i < events.size(); i++) {
                Event e = events.get(i);
                if (e.kind().equals(kind) && (id == null || e.id().equals(id))) {
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

    synchronized int size() {
        return events.size();
    }

    /**
     * Safety violations in the history: a term with two leaders (elected twice, or written under by two
     * ids), terms of successive elections not strictly increasing, a write accepted from a term below an
     * earlier accepted one. Empty when the history is clean.
     */
    synchronized List<String> violations() {
        List<String> found = new ArrayList<>();
        Map<Long, String> leaderOfTerm = new HashMap<>();
        long lastElected = 0;
        long lastWritten = 0;
        for (Event e : events) {
            switch (e.kind()) {
                case "ELECTED" -> {
                    String other = leaderOfTerm.putIfAbsent(e.term(), e.id());
                    if (other != null && !other.equals(e.id())) {
                        found.add("term " + e.term() + " has two leaders: " + other + " and " + e.id());
                    }
                    if (e.term() <= lastElected) {
                        found.add("term " + e.term() + " of " + e.id() + " elected after term " + lastElected);
                    }
                    lastElected = Math.max(lastElected, e.term());
                }
                case "WRITE" -> {
                    if (!e.accepted()) {
                        continue;
                    }
                    String other = leaderOfTerm.putIfAbsent(e.term(), e.id());
                    if (other != null && !other.equals(e.id())) {
                        found.add("term " + e.term() + " written by two leaders: " + other + " and " + e.id());
                    }
                    if (e.term() < lastWritten) {
                        found.add("write of term " + e.term() + " accepted after a write of term " + lastWritten);
                    }
                    lastWritten = Math.max(lastWritten, e.term());
                }
                default -> {
                }
            }
        }
        return found;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        synchronized (this) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing
                }
            }
        }
    }
}
