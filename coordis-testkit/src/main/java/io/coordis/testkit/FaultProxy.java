package io.coordis.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on a free loopback port in front of one target {@code host:port}, with switchable
 * network faults. Point a client at {@link #uri()} / {@link #port()} instead of the server.
 *
 * <p>Bytes are forwarded in chunks as they are read (one read of up to 16 KiB = one chunk), in order
 * and independently per direction, so pipelined clients work. Each accepted connection uses two
 * platform daemon threads named {@code faultproxy-<port>-<n>-c2s/s2c}; all threads are ended and
 * joined by {@link #close()}. Fault changes apply immediately to existing and new connections.
 */
public final class FaultProxy implements AutoCloseable {

    /** The fault menu. */
    public enum Fault {
        /** Forward everything unchanged. */
        PASS,
        /** Delay every chunk, in both directions, by the configured latency. */
        LATENCY,
        /**
         * Accept and read, but forward nothing either way; connections stay open. Each connection holds
         * back at most one chunk per direction (the rest waits in kernel buffers), and everything held
         * is delivered in order once the fault is lifted, like TCP after a partition heals. Combine
         * with {@link FaultProxy#resetAll()} to model connections that died during the partition.
         */
        BLACKHOLE,
        /** Reset (RST) every current connection and every new one as soon as it is accepted. */
        RESET,
        /**
         * Discard the next server-to-client reply after arming, on whichever connection it arrives,
         * then behave as {@link #PASS}. Exactly one whole RESP reply is discarded, however it is split
         * into TCP reads: bytes that follow it in the same read are passed on, and a reply that arrives
         * in several reads is discarded to its end (dropping only its first read would leave the client
         * decoding the rest as the next replies).
         */
        DROP_NEXT_REPLY
    }

    private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<ProxyLink> links = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Object lock = new Object();
    private final AtomicBoolean dropArmed = new AtomicBoolean();
    private final AtomicLong droppedReplies = new AtomicLong();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile Fault mode = Fault.PASS;
    private volatile Duration latency = Duration.ofMillis(100);
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort) {
        this.targetHost = Objects.requireNonNull(targetHost, "targetHost");
        this.targetPort = targetPort;
        try {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a loopback port for the fault proxy", e);
        }
        this.acceptor = newThread("faultproxy-" + port() + "-accept", this::acceptLoop);
        acceptor.start();
    }

    /**
     * Starts a proxy in front of {@code host:port}; returns once it is listening.
     *
     * @param host the target's host
     * @param port the target's port
     * @return the listening proxy; close it to stop
     */
    public static FaultProxy to(String host, int port) {
        return new FaultProxy(host, port);
    }

    /**
     * Starts a proxy in front of {@code server} (its port survives restarts, so does the proxy's target).
     *
     * @param server the target server
     * @return the listening proxy; close it to stop
     */
    public static FaultProxy to(RedisServer server) {
        return new FaultProxy(server.host(), server.port());
    }

    /**
     * Switches to {@code fault}. {@link Fault#RESET} resets all current connections at once;
     * {@link Fault#DROP_NEXT_REPLY} is the same as {@link #dropNextReply()}.
     *
     * @param fault the fault to apply from now on
     * @return this proxy
     */
    public FaultProxy set(Fault fault) {
        Objects.requireNonNull(fault, "fault");
        if (fault == Fault.DROP_NEXT_REPLY) {
            setMode(Fault.PASS);
            dropArmed.set(true);
            return this;
        }
        dropArmed.set(false);
        setMode(fault);
        if (fault == Fault.RESET) {
            resetConnections();
        }
        return this;
    }

    /**
     * The current fault ({@link Fault#DROP_NEXT_REPLY} while armed and not yet fired).
     *
     * @return the fault
     */
    public Fault fault() {
        return dropArmed.get() ? Fault.DROP_NEXT_REPLY : mode;
    }

    /**
     * Forward everything; releases anything held by {@link #blackhole()}.
     *
     * @return this proxy
     */
    public FaultProxy pass() {
        return set(Fault.PASS);
    }

    /**
     * Delays every chunk in both directions by {@code delay} (a round trip costs at least twice that).
     *
     * @param delay the delay each way
     * @return this proxy
     */
    public FaultProxy latency(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("latency must not be negative, got " + delay);
        }
        this.latency = delay;
        return set(Fault.LATENCY);
    }

    /**
     * See {@link Fault#BLACKHOLE}.
     *
     * @return this proxy
     */
    public FaultProxy blackhole() {
        return set(Fault.BLACKHOLE);
    }

    /**
     * Closes all current connections abruptly (SO_LINGER 0, so peers see a connection reset) on both
     * the client and the server side. Does not change the fault: new connections are handled as
     * before (with {@link Fault#PASS} they work normally).
     *
     * @return this proxy
     */
    public FaultProxy resetAll() {
        resetConnections();
        return this;
    }

    /**
     * See {@link Fault#DROP_NEXT_REPLY}.
     *
     * @return this proxy
     */
    public FaultProxy dropNextReply() {
        return set(Fault.DROP_NEXT_REPLY);
    }

    /**
     * Number of server-to-client replies discarded by {@link #dropNextReply()} so far.
     *
     * @return the count
     */
    public long droppedReplies() {
        return droppedReplies.get();
    }

    /**
     * Number of connections currently proxied.
     *
     * @return the count
     */
    public int connectionCount() {
        return links.size();
    }

    /**
     * Number of connections accepted since start.
     *
     * @return the count
     */
    public int acceptedCount() {
        return accepted.get();
    }

    /**
     * Always {@code "127.0.0.1"}.
     *
     * @return the host
     */
    public String host() {
        return "127.0.0.1";
    }

    /**
     * The proxy's listening port.
     *
     * @return the port
     */
    public int port() {
        return listener.getLocalPort();
    }

    /**
     * {@code "127.0.0.1:PORT"} of the proxy.
     *
     * @return the address
     */
    public String address() {
        return host() + ":" + port();
    }

    /**
     * {@code redis://127.0.0.1:PORT} of the proxy (add credentials yourself if the target needs them).
     *
     * @return the URI
     */
    public String uri() {
        return "redis://" + address();
    }

    /**
     * {@code host:port} of the target.
     *
     * @return the target's address
     */
    public String target() {
        return targetHost + ":" + targetPort;
    }

    /**
     * Stops listening, closes all connections and joins every proxy thread (at most about 2 s).
     * Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        RespClient.closeQuietly(listener);
        for (ProxyLink link : new ArrayList<>(links)) {
            link.close(false);
        }
        synchronized (lock) {
            lock.notifyAll();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        List<Thread> all = new ArrayList<>(threads);
        all.add(acceptor);
        for (Thread t : all) {
            t.interrupt();
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            if (t.isAlive()) {
                log.warn("fault proxy thread {} did not end", t.getName());
            }
        }
    }

    @Override
    public String toString() {
        return "FaultProxy[" + address() + " -> " + target() + ", " + fault() + "]";
    }

    /** Host and port of the target, for a link to connect to. */
    InetSocketAddress targetAddress() {
        return new InetSocketAddress(targetHost, targetPort);
    }

    /**
     * Blocks while the proxy is a blackhole; true when the link may forward, false when it or the proxy closed.
     *
     * @param done the link's closed flag
     */
    boolean awaitForwarding(AtomicBoolean done) throws InterruptedException {
        synchronized (lock) {
            while (mode == Fault.BLACKHOLE && !done.get() && !closed) {
                lock.wait();
            }
        }
        return !done.get() && !closed;
    }

    /** True once for each armed {@link Fault#DROP_NEXT_REPLY}: the reply that starts now is to be dropped. */
    boolean takeDrop() {
        return dropArmed.compareAndSet(true, false);
    }

    /** Counts a reply dropped by a link. */
    void dropped() {
        droppedReplies.incrementAndGet();
    }

    /** How long a link holds each chunk before forwarding it: the latency while {@link Fault#LATENCY} is on. */
    Duration delay() {
        return mode == Fault.LATENCY ? latency : Duration.ZERO;
    }

    /** Forgets a closed link and wakes its pumps. */
    void removed(ProxyLink link) {
        links.remove(link);
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    private void setMode(Fault m) {
        synchronized (lock) {
            mode = m;
            lock.notifyAll();
        }
    }

    private void resetConnections() {
        for (ProxyLink link : new ArrayList<>(links)) {
            link.close(true);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("fault proxy {} stopped accepting: {}", address(), e.toString());
                }
                return;
            }
            int id = accepted.incrementAndGet();
            if (mode == Fault.RESET || closed) {
                ProxyLink.reset(client);
                continue;
            }
            ProxyLink link = new ProxyLink(this, client, id);
            links.add(link);
            newThread("faultproxy-" + port() + "-" + id + "-c2s", link::run).start();
        }
    }

    /** A daemon thread that forgets itself when it ends; {@link #close()} interrupts and joins it. */
    Thread newThread(String name, Runnable body) {
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
}
