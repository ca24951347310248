package io.coordis.testkit.fault;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
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

    private final Schedule schedule;
    private final NemesisRun run;

    private Nemesis(Schedule schedule) {
        this.schedule = schedule;
        this.run = new NemesisRun(schedule);
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
        return schedule.seed();
    }

    /**
     * The kinds this nemesis applies, in the order of {@link Kind}; a round holds each once.
     *
     * @return the kinds
     */
    public List<Kind> kinds() {
        return schedule.kinds();
    }

    /**
     * The first {@code count} steps a run takes, computed from the seed alone: nothing is applied.
     *
     * @param count how many steps
     * @return the steps, in order
     */
    public List<Step> schedule(int count) {
        Schedule.Steps plan = schedule.steps();
        List<Step> steps = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            steps.add(plan.next().step());
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
    public Nemesis start(Duration total) {
        run.start(total);
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
        return run.await(timeout);
    }

    /**
     * Why the run stopped early: a fault that could not be applied. Empty while it runs or when it did not.
     *
     * @return the failure, or empty
     */
    public Optional<Throwable> failure() {
        return run.failure();
    }

    /**
     * The faults applied so far (healed ones have their heal time).
     *
     * @return the events, oldest first
     */
    public List<Event> events() {
        return run.events();
    }

    /** Stops injecting and heals whatever is still applied. Idempotent. */
    @Override
    public void close() {
        run.close();
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
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Configures a {@link Nemesis}. */
    public static final class Builder {
        private final long seed;
        private final FaultTargets targets = new FaultTargets();
        private Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        private Duration minGap = Duration.ofMillis(500);
        private Duration maxGap = Duration.ofMillis(1500);
        private Duration minHold = Duration.ofMillis(300);
        private Duration maxHold = Duration.ofMillis(1500);
        private Duration restartDelay = Duration.ofMillis(500);

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
            targets.servers.addAll(s);
            return this;
        }

        /**
         * Proxies that LATENCY, BLACKHOLE and LOST_REPLY may hit.
         *
         * @param p the proxies
         * @return this builder
         */
        public Builder proxies(List<FaultProxy> p) {
            targets.proxies.addAll(p);
            return this;
        }

        /**
         * Namespaces whose servers PARTITION may cut off.
         *
         * @param n the namespaces
         * @return this builder
         */
        public Builder namespaces(List<NetworkNamespace> n) {
            targets.namespaces.addAll(n);
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
            targets.clientPids = Objects.requireNonNull(pids);
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
            targets.add(kind, name, fault);
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
            targets.minLatency = min;
            targets.maxLatency = max;
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
            return new Nemesis(new Schedule(seed, List.copyOf(kinds), targets.forKinds(seed, kinds), minGap, maxGap,
                    minHold, maxHold, restartDelay));
        }
    }
}
