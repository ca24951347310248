package io.coordis.testkit.fault;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Injects faults at random into the servers, proxies and client processes of a test, from a seed that it
 * prints first ({@code nemesis seed=N}) so a failing run's schedule can be replayed with the same seed.
 * One fault at a time: a quiet gap, a fault held for a while, healed; the run is bounded in time and every
 * fault is healed in {@code finally} (and again by {@link #close()}), so a failing test leaves no paused
 * server or stopped process behind.
 *
 * <p>Faults ({@link Kind}): kill -9 of a Redis server and restart after a delay; SIGSTOP/SIGCONT of a
 * Redis server; {@code CLIENT PAUSE}; latency or a blackhole through a {@link FaultProxy}; SIGSTOP/SIGCONT
 * of a client process (e.g. a lock holder paused past its lease); a network partition of a server started in
 * a {@link NetworkNamespace} (nftables rules inside the namespace). Each applied fault is recorded as an
 * {@link Event} with its times, so checkers can relate anomalies to faults and measure recovery.
 */
public final class Nemesis implements AutoCloseable {
    /** The kinds of fault. */
    public enum Kind { KILL_RESTART, PAUSE, CLIENT_PAUSE, LATENCY, BLACKHOLE, STOP_CLIENT, PARTITION }

    /**
     * One applied fault.
     *
     * @param kind        what
     * @param target      on what (server address, proxy address or pid)
     * @param startNanos  {@link System#nanoTime()} when applied
     * @param healedNanos {@link System#nanoTime()} when healed
     */
    public record Event(Kind kind, String target, long startNanos, long healedNanos) {
        public Duration held() {
            return Duration.ofNanos(healedNanos - startNanos);
        }
    }

    private final long seed;
    private final Random random;
    private final List<RedisServer> servers;
    private final List<FaultProxy> proxies;
    private final List<NetworkNamespace> namespaces;
    private final Supplier<List<Long>> clientPids;
    private final List<Kind> kinds;
    private final Duration minGap;
    private final Duration maxGap;
    private final Duration minHold;
    private final Duration maxHold;
    private final Duration restartDelay;
    private final Duration minLatency;
    private final Duration maxLatency;
    private final List<Event> events = new ArrayList<>();
    private final List<Runnable> healers = new ArrayList<>();
    private Thread runner;
    private volatile boolean stopping;

    private Nemesis(Builder b) {
        this.seed = b.seed;
        this.random = new Random(b.seed);
        this.servers = List.copyOf(b.servers);
        this.proxies = List.copyOf(b.proxies);
        this.namespaces = List.copyOf(b.namespaces);
        this.clientPids = b.clientPids;
        this.kinds = List.copyOf(b.kinds);
        this.minGap = b.minGap;
        this.maxGap = b.maxGap;
        this.minHold = b.minHold;
        this.maxHold = b.maxHold;
        this.restartDelay = b.restartDelay;
        this.minLatency = b.minLatency;
        this.maxLatency = b.maxLatency;
    }

    /** A nemesis whose random choices come from {@code seed}. */
    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /** A seed from the {@code coordis.nemesis.seed} system property (to replay a run), else a fresh one. */
    public static long seedFromPropertyOrRandom() {
        String s = System.getProperty("coordis.nemesis.seed");
        return s != null && !s.isBlank() ? Long.parseLong(s.trim()) : new Random().nextLong();
    }

    public long seed() {
        return seed;
    }

    /** Starts injecting faults in a background thread for {@code total}, then stops with everything healed. */
    public synchronized Nemesis start(Duration total) {
        if (runner != null) {
            throw new IllegalStateException("already started");
        }
        System.out.println("nemesis seed=" + seed + " (replay with -Dcoordis.nemesis.seed=" + seed + ") kinds=" + kinds);
        long end = System.nanoTime() + total.toNanos();
        runner = new Thread(() -> loop(end), "nemesis");
        runner.setDaemon(true);
        runner.start();
        return this;
    }

    /** Waits for the run to end (at most {@code timeout}); true if it ended. */
    public boolean await(Duration timeout) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = runner;
        }
        if (t == null) {
            return true;
        }
        t.join(Math.max(1, timeout.toMillis()));
        return !t.isAlive();
    }

    /** The faults applied so far (healed ones have their heal time). */
    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Stops injecting and heals whatever is still applied. Idempotent. */
    @Override
    public void close() {
        stopping = true;
        Thread t;
        synchronized (this) {
            t = runner;
        }
        if (t != null) {
            t.interrupt();
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        healAll();
    }

    private void loop(long end) {
        try {
            while (!stopping && System.nanoTime() < end) {
                sleep(between(minGap, maxGap));
                if (stopping || System.nanoTime() >= end) {
                    return;
                }
                Kind kind = kinds.get(random.nextInt(kinds.size()));
                Duration hold = between(minHold, maxHold);
                apply(kind, hold);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            healAll();
        }
    }

    private void apply(Kind kind, Duration hold) throws InterruptedException {
        String target;
        long start = System.nanoTime();
        switch (kind) {
            case KILL_RESTART -> {
                RedisServer s = pick(servers, kind);
                target = s.address();
                s.kill();
                register(() -> {
                    if (!s.isRunning()) {
                        s.restart(Duration.ZERO);
                    }
                });
                hold = restartDelay;
            }
            case PAUSE -> {
                RedisServer s = pick(servers, kind);
                target = s.address();
                s.pause();
                register(() -> {
                    if (s.isPaused()) {
                        s.resume();
                    }
                });
            }
            case CLIENT_PAUSE -> {
                RedisServer s = pick(servers, kind);
                target = s.address();
                s.command("CLIENT", "PAUSE", Long.toString(hold.toMillis()));
                register(() -> {
                    try {
                        s.command("CLIENT", "UNPAUSE");
                    } catch (RuntimeException ignored) {
                        // expired on its own, or the server is gone
                    }
                });
            }
            case LATENCY -> {
                FaultProxy p = pick(proxies, kind);
                target = p.address();
                p.latency(between(minLatency, maxLatency));
                register(p::pass);
            }
            case BLACKHOLE -> {
                FaultProxy p = pick(proxies, kind);
                target = p.address();
                p.blackhole();
                register(() -> p.pass().resetAll());
            }
            case PARTITION -> {
                NetworkNamespace ns = pick(namespaces, kind);
                target = ns.toString();
                ns.partition();
                register(ns::heal);
            }
            case STOP_CLIENT -> {
                List<Long> pids = clientPids.get();
                if (pids.isEmpty()) {
                    return;
                }
                long pid = pids.get(random.nextInt(pids.size()));
                target = "pid " + pid;
                signal("STOP", pid);
                register(() -> signal("CONT", pid));
            }
            default -> throw new IllegalStateException("unknown fault " + kind);
        }
        try {
            sleep(hold);
        } finally {
            healAll();
            synchronized (this) {
                events.add(new Event(kind, target, start, System.nanoTime()));
            }
        }
    }

    private synchronized void register(Runnable healer) {
        healers.add(healer);
    }

    private void healAll() {
        List<Runnable> pending;
        synchronized (this) {
            pending = new ArrayList<>(healers);
            healers.clear();
        }
        for (Runnable h : pending) {
            try {
                h.run();
            } catch (RuntimeException e) {
                System.out.println("nemesis: healing failed: " + e);
            }
        }
    }

    private <T> T pick(List<T> from, Kind kind) {
        if (from.isEmpty()) {
            throw new IllegalStateException(kind + " needs a target; none was given to the nemesis");
        }
        return from.get(random.nextInt(from.size()));
    }

    private Duration between(Duration min, Duration max) {
        long span = max.toMillis() - min.toMillis();
        return min.plusMillis(span <= 0 ? 0 : (long) (random.nextDouble() * span));
    }

    private static void sleep(Duration d) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(Math.max(0, d.toMillis()));
    }

    /** Sends {@code kill -SIG pid}. */
    public static void signal(String sig, long pid) {
        try {
            Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Configures a {@link Nemesis}. */
    public static final class Builder {
        private final long seed;
        private final List<RedisServer> servers = new ArrayList<>();
        private final List<FaultProxy> proxies = new ArrayList<>();
        private final List<NetworkNamespace> namespaces = new ArrayList<>();
        private Supplier<List<Long>> clientPids = List::of;
        private Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        private Duration minGap = Duration.ofMillis(500);
        private Duration maxGap = Duration.ofMillis(1500);
        private Duration minHold = Duration.ofMillis(300);
        private Duration maxHold = Duration.ofMillis(1500);
        private Duration restartDelay = Duration.ofMillis(500);
        private Duration minLatency = Duration.ofMillis(50);
        private Duration maxLatency = Duration.ofMillis(250);

        private Builder(long seed) {
            this.seed = seed;
        }

        public Builder servers(List<RedisServer> s) {
            servers.addAll(s);
            return this;
        }

        public Builder proxies(List<FaultProxy> p) {
            proxies.addAll(p);
            return this;
        }

        /** Namespaces whose servers PARTITION may cut off. */
        public Builder namespaces(List<NetworkNamespace> n) {
            namespaces.addAll(n);
            return this;
        }

        /** The client processes STOP_CLIENT may pause (asked at each fault: processes may be replaced). */
        public Builder clientPids(Supplier<List<Long>> pids) {
            clientPids = Objects.requireNonNull(pids);
            return this;
        }

        public Builder kinds(Set<Kind> k) {
            kinds = EnumSet.copyOf(k);
            return this;
        }

        /** Quiet time between faults, chosen uniformly in [min, max]. */
        public Builder gap(Duration min, Duration max) {
            minGap = min;
            maxGap = max;
            return this;
        }

        /** How long a fault is held, chosen uniformly in [min, max] (KILL_RESTART uses the restart delay). */
        public Builder hold(Duration min, Duration max) {
            minHold = min;
            maxHold = max;
            return this;
        }

        /** The delay LATENCY adds to each direction, chosen uniformly in [min, max] (default 50–250 ms). */
        public Builder latency(Duration min, Duration max) {
            minLatency = min;
            maxLatency = max;
            return this;
        }

        public Builder restartDelay(Duration d) {
            restartDelay = d;
            return this;
        }

        public Nemesis build() {
            if (kinds.isEmpty()) {
                throw new IllegalArgumentException("choose at least one kind of fault");
            }
            return new Nemesis(this);
        }
    }
}
