package io.coordis.micrometer;

import io.coordis.Coordis;
import io.coordis.Telemetry;
import io.coordis.NodeVote;
import io.coordis.Outcome;
import io.coordis.queue.ReliableQueue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Micrometer meters (and, optionally, observations) for a Coordis client: give it to
 * {@link Coordis.Builder#telemetry} and the client's locks, elections, reliable queues and signals show up in the
 * {@link MeterRegistry}. No Spring needed.
 *
 * <pre>{@code
 * CoordisMetrics metrics = CoordisMetrics.builder(registry).tagNames(Set.of("nightly-report", "jobs")).build();
 * Coordis coordis = Coordis.builder().url("redis://127.0.0.1:6379").telemetry(metrics).connect();
 * metrics.watch(coordis.reliableQueue("jobs"), Duration.ofSeconds(15)); // depth, in-flight, ... gauges
 * // ... on shutdown: coordis.close(); metrics.close();
 * }</pre>
 *
 * <p><b>Bounded tags.</b> Lock, election, queue and channel names can be unbounded ({@code orders:42}), so by
 * default none becomes a tag value: every meter's {@code name} tag is {@value #OTHER}. Names become tag values only
 * through {@link Builder#tagNames(Collection) an allowlist} or {@link Builder#tagNames(Function) a resolver}
 * (e.g. {@code n -> n.replaceAll(":\\d+$", ":*")}). A queue given to {@link #watch} is tagged with its own name: naming
 * it there is the allowlist. Meters sharing a tag value add up (the leader gauge counts the elections led).
 *
 * <p><b>Meters</b> (tag values lower case):
 * <table>
 * <caption>meters</caption>
 * <tr><th>name</th><th>type</th><th>tags</th></tr>
 * <tr><td>{@code coordis.lock.acquire}</td><td>timer</td><td>{@code name}, {@code result} = acquired | busy |
 *     timeout | interrupted | error</td></tr>
 * <tr><td>{@code coordis.lock.held}</td><td>long task timer</td><td>{@code name}</td></tr>
 * <tr><td>{@code coordis.lock.lost}</td><td>counter</td><td>{@code name}, {@code reason} = not_ours (Redis says the
 *     key is no longer this holder's: expired, deleted, taken over) | deadline (not renewed in time: Redis
 *     unreachable or slow)</td></tr>
 * <tr><td>{@code coordis.lock.renewals}</td><td>counter</td><td>{@code name}, {@code outcome} = renewed | failed |
 *     refused</td></tr>
 * <tr><td>{@code coordis.redlock.votes}</td><td>counter</td><td>{@code name}, {@code node} (index in the client's
 *     URLs), {@code address} ({@code host:port}), {@code vote} = acquired | held_by_other | refused_recent_restart |
 *     error | timeout | not_awaited</td></tr>
 * <tr><td>{@code coordis.election.campaign}</td><td>timer</td><td>{@code name}, {@code result} as for locks</td></tr>
 * <tr><td>{@code coordis.election.leader}</td><td>gauge</td><td>{@code name}: 1 while this client leads, else 0</td></tr>
 * <tr><td>{@code coordis.election.term}</td><td>gauge</td><td>{@code name}: the term of the last leadership won</td></tr>
 * <tr><td>{@code coordis.election.transitions}</td><td>counter</td><td>{@code name}, {@code to} = leader |
 *     follower</td></tr>
 * <tr><td>{@code coordis.election.held}, {@code .lost}, {@code .renewals}</td><td></td><td>as for locks, for
 *     leaderships</td></tr>
 * <tr><td>{@code coordis.queue.messages}</td><td>counter</td><td>{@code name}, {@code outcome} = acked | nacked |
 *     redelivered (taken back from a dead consumer) | dead_lettered</td></tr>
 * <tr><td>{@code coordis.queue.processing}</td><td>timer</td><td>{@code name}, {@code outcome} = acked | nacked |
 *     dead_lettered: from take to settle</td></tr>
 * <tr><td>{@code coordis.queue.depth}, {@code .inflight}, {@code .delayed}, {@code .dead}</td><td>gauges</td>
 *     <td>{@code name}: messages waiting, in consumers' slots, parked for a delayed retry, in the dead letters;
 *     polled by {@link #watch}</td></tr>
 * <tr><td>{@code coordis.queue.oldest.age}</td><td>time gauge</td><td>{@code name}: age of the oldest waiting
 *     message (0 when none)</td></tr>
 * <tr><td>{@code coordis.queue.settled}</td><td>function counter</td><td>{@code name}: messages settled for good
 *     (acked or dead-lettered) by every Coordis consumer of the queue, as Redis counts them (its rate is the
 *     queue's throughput); polled by {@link #watch}</td></tr>
 * <tr><td>{@code coordis.signals.published}, {@code .received}</td><td>counters</td><td>{@code name} (the
 *     channel); received counts each node that delivered it (a master and a replica count two)</td></tr>
 * <tr><td>{@code coordis.ratelimit.permits}</td><td>counter</td><td>{@code name} (a family's for its members),
 *     {@code outcome} = granted | denied: permits asked for, by each decision's outcome</td></tr>
 * <tr><td>{@code coordis.signals.gaps}</td><td>counter</td><td>{@code node} ({@code host:port}): pub/sub connection
 *     lost and subscribed again; signals published meanwhile were missed</td></tr>
 * <tr><td>{@code coordis.latch.count.downs}</td><td>counter</td><td>{@code name}, {@code opened} = true (the count
 *     down that opened the latch) | false</td></tr>
 * <tr><td>{@code coordis.latch.await}</td><td>timer</td><td>{@code name}, {@code result} = open | timeout</td></tr>
 * </table>
 *
 * <p><b>Observations</b> (with {@link Builder#observations}): {@code coordis.lock.acquiring} around each acquire and
 * {@code coordis.election.campaigning} around each campaign, in scope on the calling thread, with the low-cardinality
 * key values {@code name} (resolved as above) and {@code result}, and the high-cardinality {@code coordis.name} (the
 * name itself, for traces).
 *
 * <p>Thread-safe. {@link #close()} stops the polling of watched queues; the meters stay registered.
 */
public final class CoordisMetrics implements Telemetry, AutoCloseable {
    /** The {@code name} tag value of every name the allowlist or resolver does not let through. */
    public static final String OTHER = "other";

    private final MeterRegistry registry;
    private final ObservationRegistry observations;
    private final Function<String, String> names;
    private final Map<String, LeaderState> leaders = new ConcurrentHashMap<>();
    private final QueuePolling polling;

    private CoordisMetrics(Builder b) {
        this.registry = b.registry;
        this.observations = b.observations;
        this.names = b.names;
        this.polling = new QueuePolling(registry);
    }

    /**
     * Meters in {@code registry}, no observations, every name tagged {@value #OTHER}.
     *
     * @param registry where the meters go
     * @return the telemetry, to set on the client's builder
     */
    public static CoordisMetrics of(MeterRegistry registry) {
        return builder(registry).build();
    }

    /**
     * Settings for meters in {@code registry}: observations and which names become tag values.
     *
     * @param registry where the meters go
     * @return a new builder
     */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    /**
     * Polls {@code queue}'s figures ({@link ReliableQueue#stats()}) every {@code every} on a thread of this object's,
     * into the {@code coordis.queue.depth}, {@code .inflight}, {@code .delayed}, {@code .dead} and
     * {@code .oldest.age} gauges and the {@code coordis.queue.settled} counter, tagged with the queue's name; the
     * first poll runs at once. Gauges read NaN (the counter 0) until
     * the first poll answered; a failed poll keeps the last figures and is logged.
     *
     * @param queue the queue to poll
     * @param every how often to poll
     * @throws IllegalArgumentException when {@code every} is under 100 ms, or the queue is watched already
     * @throws IllegalStateException    after {@link #close()}
     */
    public void watch(ReliableQueue queue, Duration every) {
        Objects.requireNonNull(queue, "queue must not be null");
        Objects.requireNonNull(every, "poll interval must not be null");
        if (every.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("queue poll interval must be at least 100 ms, was " + every
                    + "; figures change slowly, use e.g. Duration.ofSeconds(15)");
        }
        polling.watch(queue, every);
    }

    /** Stops polling the watched queues (waiting up to a second for a poll in progress). Idempotent. */
    @Override
    public void close() {
        polling.close();
    }

    @Override
    public Wait acquiring(String lock) {
        return timed("coordis.lock.acquire", "coordis.lock.acquiring", lock);
    }

    @Override
    public Wait campaigning(String election) {
        return timed("coordis.election.campaign", "coordis.election.campaigning", election);
    }

    private Wait timed(String timer, String observation, String name) {
        String tag = tag(name);
        Observation o = null;
        Observation.Scope scope = null;
        if (observations != null && !observations.isNoop()) {
            o = Observation.createNotStarted(observation, observations)
                    .lowCardinalityKeyValue("name", tag)
                    .highCardinalityKeyValue("coordis.name", name)
                    .start();
            scope = o.openScope();
        }
        Observation started = o;
        Observation.Scope opened = scope;
        return (result, took) -> {
            String value = lower(result);
            Timer.builder(timer).tags("name", tag, "result", value).register(registry).record(took);
            if (started != null) {
                opened.close();
                started.lowCardinalityKeyValue("result", value).stop();
            }
        };
    }

    @Override
    public Hold held(Claim claim, String name) {
        String prefix = claim == Claim.LOCK ? "coordis.lock." : "coordis.election.";
        String tag = tag(name);
        LongTaskTimer.Sample sample = LongTaskTimer.builder(prefix + "held").tag("name", tag).register(registry).start();
        AtomicBoolean ended = new AtomicBoolean();
        return new Hold() {
            @Override
            public void renewal(Renewal outcome) {
                registry.counter(prefix + "renewals", "name", tag, "outcome", lower(outcome)).increment();
            }

            @Override
            public void lost(Loss reason) {
                registry.counter(prefix + "lost", "name", tag, "reason", lower(reason)).increment();
            }

            @Override
            public void ended() {
                if (ended.compareAndSet(false, true)) {
                    sample.stop();
                }
            }
        };
    }

    @Override
    public void redlockVotes(String lock, List<NodeVote> votes) {
        String tag = tag(lock);
        for (int i = 0; i < votes.size(); i++) {
            NodeVote v = votes.get(i);
            registry.counter("coordis.redlock.votes", "name", tag, "node", Integer.toString(i), "address", v.node(),
                    "vote", lower(v.vote())).increment();
        }
    }

    @Override
    public void leadership(String election, boolean leading, long term) {
        String tag = tag(election);
        LeaderState state = leaders.computeIfAbsent(tag, t -> new LeaderState(registry, t));
        if (leading) {
            state.leading.incrementAndGet();
            state.term.set(term);
        } else {
            state.leading.updateAndGet(n -> Math.max(0, n - 1));
        }
        registry.counter("coordis.election.transitions", "name", tag, "to", leading ? "leader" : "follower")
                .increment();
    }

    @Override
    public void settled(String queue, Outcome outcome, Duration processing) {
        String value = switch (outcome) {
            case ACKED -> "acked";
            case REQUEUED, DELAYED -> "nacked";
            case DEAD_LETTERED -> "dead_lettered";
            // a repeated settle, or a message a sweeper took back (counted as redelivered by the sweep)
            case ALREADY_SETTLED, GONE -> null;
        };
        if (value == null) {
            return;
        }
        String tag = tag(queue);
        registry.counter("coordis.queue.messages", "name", tag, "outcome", value).increment();
        if (processing != null) {
            Timer.builder("coordis.queue.processing").tags("name", tag, "outcome", value).register(registry)
                    .record(processing);
        }
    }

    @Override
    public void swept(String queue, int requeued, int deadLettered) {
        String tag = tag(queue);
        registry.counter("coordis.queue.messages", "name", tag, "outcome", "redelivered").increment(requeued);
        registry.counter("coordis.queue.messages", "name", tag, "outcome", "dead_lettered").increment(deadLettered);
    }

    @Override
    public void published(String channel, long receivers) {
        registry.counter("coordis.signals.published", "name", tag(channel)).increment();
    }

    @Override
    public void received(String channel) {
        registry.counter("coordis.signals.received", "name", tag(channel)).increment();
    }

    @Override
    public void rateDecided(String limiter, boolean granted, int permits) {
        registry.counter("coordis.ratelimit.permits", "name", tag(limiter), "outcome", granted ? "granted" : "denied")
                .increment(permits);
    }

    @Override
    public void gap(String node) {
        registry.counter("coordis.signals.gaps", "node", node).increment();
    }

    @Override
    public void countedDown(String latch, long count, boolean opened) {
        registry.counter("coordis.latch.count.downs", "name", tag(latch), "opened", Boolean.toString(opened))
                .increment();
    }

    @Override
    public void latchAwaited(String latch, boolean open, Duration took) {
        Timer.builder("coordis.latch.await").tags("name", tag(latch), "result", open ? "open" : "timeout")
                .register(registry).record(took);
    }

    /** The {@code name} tag value of {@code name}: what the resolver answers, {@value #OTHER} for nothing. */
    String tag(String name) {
        String t = names.apply(name);
        return t == null || t.isBlank() ? OTHER : t;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return "CoordisMetrics[" + registry.getClass().getSimpleName() + (observations != null ? ", observed" : "")
                + "]";
    }

    /** The leader and term gauges of one {@code name} tag value; held here, as gauges keep only weak references. */
    private static final class LeaderState {
        final AtomicInteger leading = new AtomicInteger();
        final AtomicLong term = new AtomicLong();

        LeaderState(MeterRegistry registry, String tag) {
            Gauge.builder("coordis.election.leader", leading, AtomicInteger::get).tags(Tags.of("name", tag))
                    .register(registry);
            Gauge.builder("coordis.election.term", term, AtomicLong::get).tags(Tags.of("name", tag))
                    .register(registry);
        }
    }

    /** Settings of a {@link CoordisMetrics}; not thread-safe. */
    public static final class Builder {
        private final MeterRegistry registry;
        private ObservationRegistry observations;
        private Function<String, String> names = n -> OTHER;

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "meter registry must not be null");
        }

        /**
         * Also observe acquires and campaigns in {@code registry} (traces). Default: no observations.
         *
         * @param registry where the observations go
         * @return this builder
         */
        public Builder observations(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "observation registry must not be null");
            return this;
        }

        /**
         * Names (of locks, elections, queues, channels) that become {@code name} tag values as they are; every
         * other name is tagged {@value #OTHER}. Replaces an earlier allowlist or resolver.
         *
         * @param allowed the names that are tagged as they are
         * @return this builder
         */
        public Builder tagNames(Collection<String> allowed) {
            Set<String> copy = Set.copyOf(Objects.requireNonNull(allowed, "allowed names must not be null"));
            this.names = n -> copy.contains(n) ? n : OTHER;
            return this;
        }

        /**
         * The {@code name} tag value of each name (of a lock, election, queue, channel); {@code null} or blank means
         * {@value #OTHER}. It must map the names an application uses onto a small, fixed set of values, and be fast
         * and thread-safe (it runs on every acquire). Replaces an earlier allowlist or resolver.
         *
         * @param resolver maps a name to its tag value
         * @return this builder
         */
        public Builder tagNames(Function<String, String> resolver) {
            this.names = Objects.requireNonNull(resolver, "name resolver must not be null");
            return this;
        }

        /**
         * The telemetry with these settings.
         *
         * @return the telemetry, to set on the client's builder
         */
        public CoordisMetrics build() {
            return new CoordisMetrics(this);
        }
    }
}
