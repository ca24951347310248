package io.coordis.testkit.fault;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Injects faults into the servers, proxies and client processes of a test, from a seed that it prints first
 * ({@code nemesis seed=N}) so a failing run's schedule can be replayed with the same seed.
 * One fault at a time: a quiet gap, a fault held for a while, healed.
 *
 * <p>The kinds come in rounds: each round applies every chosen kind once, in an order shuffled from the seed,
 * each to a target drawn from the seed; {@link #schedule(int)} shows the steps a seed gives without applying
 * anything. A run lasts the time given to {@link #start(Duration)} but never ends before its first round is
 * complete, so every chosen kind is applied at least once. The same seed always gives the same steps; how many
 * of them a run takes depends on how long each fault took to apply and heal.
 *
 * <p>Every fault's healing is registered before the fault is applied and runs after its hold, when applying
 * it threw (also half way), and on {@link #close()}, so a failing test or nemesis leaves no paused server,
 * partitioned namespace or stopped process behind. A fault that could not be applied ends the run; {@link
 * #await(Duration)} then throws it.
 *
 * <p>Faults ({@link Kind}): kill -9 of a Redis server and restart after a delay; SIGSTOP/SIGCONT of a
 * Redis server; {@code CLIENT PAUSE}; latency, a blackhole or a lost reply through a {@link FaultProxy}; SIGSTOP/SIGCONT
 * of a client process (e.g. a lock holder paused past its lease); a network partition of a server started in
 * a {@link NetworkNamespace} (nftables rules inside the namespace). A test may add targets of its own for any
 * kind ({@link Builder#target}). Each applied fault is recorded as an {@link Event} with its times, so
 * checkers can relate anomalies to faults and measure recovery. Thread-safe.
 */
public final class Nemesis implements AutoCloseable {
    /** The kinds of fault. */
    public enum Kind {
        /** A Redis server is killed with SIGKILL and started again after the restart delay. */
        KILL_RESTART,
        /** A Redis server is stopped with SIGSTOP and continued with SIGCONT. */
        PAUSE,
        /** A Redis server holds its clients' commands ({@code CLIENT PAUSE}). */
        CLIENT_PAUSE,
        /** A proxy delays every chunk both ways. */
        LATENCY,
        /** A proxy holds everything in both directions. */
        BLACKHOLE,
        /** A client process is stopped with SIGSTOP and continued with SIGCONT. */
        STOP_CLIENT,
        /** A server in a network namespace is cut off from every client. */
        PARTITION,
        /** The next reply through a proxy is lost (a client waiting for it times out); the others pass. */
        LOST_REPLY
    }

    /**
     * One applied fault.
     *
     * @param kind        what
     * @param target      on what (server address, proxy address or pid)
     * @param startNanos  {@link System#nanoTime()} when applied
     * @param healedNanos {@link System#nanoTime()} when healed
     */
    public record Event(Kind kind, String target, long startNanos, long healedNanos) {
        /**
         * How long the fault was held.
         *
         * @return the time from applying to healing
         */
        public Duration held() {
            return Duration.ofNanos(healedNanos - startNanos);
        }
    }

    /**
     * One planned fault.
     *
     * @param round  which round it belongs to, from 0 (every round holds each chosen kind once)
     * @param gap    the quiet time before it
     * @param kind   what
     * @param target the name of its target (a server's or proxy's address, a namespace, "client processes")
     * @param hold   how long it is held (for {@link Kind#KILL_RESTART} the restart delay)
     */
    public record Step(int round, Duration gap, Kind kind, String target, Duration hold) {
    }

    /**
     * One kind of fault on one target, as the nemesis applies it. The nemesis calls {@link #heal()} after the
     * hold, when {@link #apply} threw and when it is closed, so {@code heal} must be idempotent and harmless
     * when the fault was applied only in part or not at all. Called from one thread at a time, except that
     * {@link Nemesis#close()} may heal while a stuck {@code apply} is still running.
     */
    public interface Fault {
        /**
         * Applies the fault, to be held for {@code hold} (a fault that lifts by itself, like {@code CLIENT
         * PAUSE}, uses it).
         *
         * @param hold how long the fault is held
         * @return what was hit, for the {@link Event} (usually the target's name), or {@code null} when there
         *         was nothing to hit (no client process running): the step is then skipped and not recorded
         */
        String apply(Duration hold);

        /** Lifts the fault. */
        void heal();
    }

    private record Target(String name, Fault fault) {
    }

    private final long seed;
    private final Map<Kind, List<Target>> targets;
    private final List<Kind> kinds;
    private final Duration minGap;
    private final Duration maxGap;
    private final Duration minHold;
    private final Duration maxHold;
    private final Duration restartDelay;
    private final List<Event> events = new ArrayList<>();
    private final List<Fault> applied = new ArrayList<>();
    private Thread runner;
    private Throwable failure;
    private volatile boolean stopping;

    private Nemesis(Builder b, Map<Kind, List<Target>> targets) {
        this.seed = b.seed;
        this.targets = targets;
        this.kinds = List.copyOf(b.kinds);
        this.minGap = b.minGap;
        this.maxGap = b.maxGap;
        this.minHold = b.minHold;
        this.maxHold = b.maxHold;
        this.restartDelay = b.restartDelay;
    }

    /**
     * A nemesis whose choices come from {@code seed}.
     *
     * @param seed the seed of every choice
     * @return a new builder
     */
    public static Builder builder(long seed) {
        return new Builder(seed);
    }

    /**
     * A seed from the {@code coordis.nemesis.seed} system property (to replay a run), else a fresh one.
     *
     * @return the seed
     */
    public static long seedFromPropertyOrRandom() {
        String s = System.getProperty("coordis.nemesis.seed");
        return s != null && !s.isBlank() ? Long.parseLong(s.trim()) : new Random().nextLong();
    }

    /**
     * The seed this nemesis draws its choices from.
     *
     * @return the seed
     */
    public long seed() {
        return seed;
    }

    /**
     * The kinds this nemesis applies, in the order of {@link Kind}; a round holds each once.
     *
     * @return the kinds
     */
    public List<Kind> kinds() {
        return kinds;
    }

    /**
     * The first {@code count} steps a run takes, computed from the seed alone: nothing is applied.
     *
     * @param count how many steps
     * @return the steps, in order
     */
    public List<Step> schedule(int count) {
        Plan plan = new Plan();
        List<Step> steps = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            steps.add(plan.next().step);
        }
        return steps;
    }

    /**
     * Starts injecting faults in a background thread for {@code total}, and at least until every chosen kind
     * was applied once; then stops with everything healed.
     *
     * @param total how long to run
     * @return this nemesis
     * @throws IllegalStateException if already started
     */
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

    /**
     * Waits for the run to end (at most {@code timeout}); true if it ended.
     *
     * @param timeout how long to wait
     * @return {@code true} when the run ended in time
     * @throws InterruptedException when interrupted while waiting
     * @throws IllegalStateException when the run ended because a fault could not be applied (with that
     *                               failure as the cause; what was applied is healed by then)
     */
    public boolean await(Duration timeout) throws InterruptedException {
        Thread t;
        synchronized (this) {
            t = runner;
        }
        if (t == null) {
            return true;
        }
        t.join(Math.max(1, timeout.toMillis()));
        if (t.isAlive()) {
            return false;
        }
        Optional<Throwable> failed = failure();
        if (failed.isPresent()) {
            throw new IllegalStateException("nemesis (seed " + seed + ") stopped: " + failed.get(), failed.get());
        }
        return true;
    }

    /**
     * Why the run stopped early: a fault that could not be applied. Empty while it runs or when it did not.
     *
     * @return the failure, or empty
     */
    public synchronized Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * The faults applied so far (healed ones have their heal time).
     *
     * @return the events, oldest first
     */
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
        Plan plan = new Plan();
        try {
            while (!stopping) {
                Planned next = plan.next();
                sleep(next.step.gap());
                boolean firstRoundDone = next.step.round() > 0;
                if (stopping || (firstRoundDone && System.nanoTime() >= end)) {
                    return;
                }
                apply(next);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            if (!stopping) { // a fault cut short by close() is no failure
                synchronized (this) {
                    failure = e;
                }
                System.out.println("nemesis (seed " + seed + ") stopped: " + e);
            }
        } finally {
            healAll();
        }
    }

    private void apply(Planned next) throws InterruptedException {
        Fault fault = next.target.fault();
        synchronized (this) {
            applied.add(fault);
        }
        long start = System.nanoTime();
        String hit = null;
        try {
            hit = fault.apply(next.step.hold());
            if (hit != null) {
                sleep(next.step.hold());
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot apply " + next.step.kind() + " to " + next.step.target()
                    + ": " + e.getMessage(), e);
        } finally {
            healAll();
            if (hit != null) {
                synchronized (this) {
                    events.add(new Event(next.step.kind(), hit, start, System.nanoTime()));
                }
            }
        }
    }

    /** Heals every applied fault; one whose healing failed (or was interrupted) stays listed, to be tried again. */
    private void healAll() {
        List<Fault> pending;
        synchronized (this) {
            pending = new ArrayList<>(applied);
        }
        for (Fault f : pending) {
            try {
                f.heal();
                synchronized (this) {
                    applied.remove(f);
                }
            } catch (RuntimeException e) {
                System.out.println("nemesis (seed " + seed + "): healing failed, will try again: " + e);
            }
        }
    }

    private record Planned(Step step, Target target) {
    }

    /** The steps of a seed: rounds of the chosen kinds, shuffled, each with a target, gap and hold. */
    private final class Plan {
        private final Random random = new Random(seed);
        private final List<Kind> round = new ArrayList<>();
        private int rounds = -1;
        private int position;

        Planned next() {
            if (position == round.size()) {
                round.clear();
                round.addAll(kinds);
                Collections.shuffle(round, random);
                position = 0;
                rounds++;
            }
            Kind kind = round.get(position++);
            Duration gap = between(minGap, maxGap);
            List<Target> of = targets.get(kind);
            Target target = of.get(random.nextInt(of.size()));
            Duration hold = between(minHold, maxHold);
            if (kind == Kind.KILL_RESTART) {
                hold = restartDelay;
            }
            return new Planned(new Step(rounds, gap, kind, target.name(), hold), target);
        }

        private Duration between(Duration min, Duration max) {
            return Nemesis.between(random, min, max);
        }
    }

    private static Duration between(Random random, Duration min, Duration max) {
        long span = max.toMillis() - min.toMillis();
        return min.plusMillis(span <= 0 ? 0 : (long) (random.nextDouble() * span));
    }

    private static void sleep(Duration d) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(Math.max(0, d.toMillis()));
    }

    /**
     * Sends {@code kill -SIG pid}.
     *
     * @param sig the signal's name, e.g. {@code STOP}
     * @param pid the process to signal
     */
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
        private final Map<Kind, List<Target>> custom = new EnumMap<>(Kind.class);
        private Supplier<List<Long>> clientPids;
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

        /**
         * Servers that KILL_RESTART, PAUSE and CLIENT_PAUSE may hit.
         *
         * @param s the servers
         * @return this builder
         */
        public Builder servers(List<RedisServer> s) {
            servers.addAll(s);
            return this;
        }

        /**
         * Proxies that LATENCY, BLACKHOLE and LOST_REPLY may hit.
         *
         * @param p the proxies
         * @return this builder
         */
        public Builder proxies(List<FaultProxy> p) {
            proxies.addAll(p);
            return this;
        }

        /**
         * Namespaces whose servers PARTITION may cut off.
         *
         * @param n the namespaces
         * @return this builder
         */
        public Builder namespaces(List<NetworkNamespace> n) {
            namespaces.addAll(n);
            return this;
        }

        /**
         * The client processes STOP_CLIENT may pause (asked at each fault, as processes may be replaced; when
         * none is running the step is skipped).
         *
         * @param pids asked for the running client processes' PIDs
         * @return this builder
         */
        public Builder clientPids(Supplier<List<Long>> pids) {
            clientPids = Objects.requireNonNull(pids);
            return this;
        }

        /**
         * A target of the test's own for {@code kind}, drawn like the built-in ones (after them, in the order
         * added); see {@link Fault} for what its {@code heal} must tolerate.
         *
         * @param kind  the kind of fault
         * @param name  the target's name, for the events
         * @param fault applies and heals the fault
         * @return this builder
         */
        public Builder target(Kind kind, String name, Fault fault) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(fault, "fault");
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a target needs a name, for the schedule and the events");
            }
            custom.computeIfAbsent(kind, k -> new ArrayList<>()).add(new Target(name, fault));
            return this;
        }

        /**
         * The kinds of fault to apply; {@link #build()} needs at least one.
         *
         * @param k the kinds
         * @return this builder
         */
        public Builder kinds(Set<Kind> k) {
            kinds = EnumSet.copyOf(k);
            return this;
        }

        /**
         * Quiet time between faults, chosen uniformly in [min, max].
         *
         * @param min the shortest gap
         * @param max the longest gap
         * @return this builder
         */
        public Builder gap(Duration min, Duration max) {
            minGap = min;
            maxGap = max;
            return this;
        }

        /**
         * How long a fault is held, chosen uniformly in [min, max] (KILL_RESTART uses the restart delay).
         *
         * @param min the shortest hold
         * @param max the longest hold
         * @return this builder
         */
        public Builder hold(Duration min, Duration max) {
            minHold = min;
            maxHold = max;
            return this;
        }

        /**
         * The delay LATENCY adds to each direction, chosen uniformly in [min, max] (default 50–250 ms).
         *
         * @param min the smallest delay
         * @param max the largest delay
         * @return this builder
         */
        public Builder latency(Duration min, Duration max) {
            minLatency = min;
            maxLatency = max;
            return this;
        }

        /**
         * How long a server killed by {@link Kind#KILL_RESTART} stays down.
         *
         * @param d the delay before the restart
         * @return this builder
         */
        public Builder restartDelay(Duration d) {
            restartDelay = d;
            return this;
        }

        /**
         * @return the nemesis, not started
         * @throws IllegalArgumentException when no kind was chosen, or a chosen kind has no target
         */
        public Nemesis build() {
            if (kinds.isEmpty()) {
                throw new IllegalArgumentException("choose at least one kind of fault");
            }
            Map<Kind, List<Target>> targets = builtIn();
            custom.forEach((kind, list) -> targets.computeIfAbsent(kind, k -> new ArrayList<>()).addAll(list));
            for (Kind kind : kinds) {
                if (targets.getOrDefault(kind, List.of()).isEmpty()) {
                    throw new IllegalArgumentException(kind + " needs a target; none was given to the nemesis");
                }
            }
            Map<Kind, List<Target>> frozen = new EnumMap<>(Kind.class);
            targets.forEach((kind, list) -> frozen.put(kind, List.copyOf(list)));
            return new Nemesis(this, frozen);
        }

        private Map<Kind, List<Target>> builtIn() {
            Map<Kind, List<Target>> t = new EnumMap<>(Kind.class);
            for (RedisServer s : servers) {
                add(t, Kind.KILL_RESTART, s.address(), Faults.killRestart(s));
                add(t, Kind.PAUSE, s.address(), Faults.pause(s));
                add(t, Kind.CLIENT_PAUSE, s.address(), Faults.clientPause(s));
            }
            // latencies come from a stream of their own, so they do not shift the schedule's draws
            Random latencies = new Random(~seed);
            for (FaultProxy p : proxies) {
                add(t, Kind.LATENCY, p.address(),
                        Faults.latency(p, () -> between(latencies, minLatency, maxLatency)));
                add(t, Kind.BLACKHOLE, p.address(), Faults.blackhole(p));
                add(t, Kind.LOST_REPLY, p.address(), Faults.lostReply(p));
            }
            for (NetworkNamespace ns : namespaces) {
                add(t, Kind.PARTITION, ns.toString(), Faults.partition(ns));
            }
            if (clientPids != null) {
                add(t, Kind.STOP_CLIENT, "client processes", Faults.stopClient(clientPids, new Random(seed * 31 + 7)));
            }
            return t;
        }

        private static void add(Map<Kind, List<Target>> t, Kind kind, String name, Fault fault) {
            t.computeIfAbsent(kind, k -> new ArrayList<>()).add(new Target(name, fault));
        }
    }
}
