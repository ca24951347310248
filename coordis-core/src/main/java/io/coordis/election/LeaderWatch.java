package io.coordis.election;

import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One observer of an election. Reads the leader once the subscription to the election's channel is
 * confirmed, again on every announcement (election, resignation) and after a pub/sub gap, and when the
 * leader's TTL runs out (a timer at the reported TTL plus jitter, at most one TTL of the options as a
 * safety net for keys without expiry and lost announcements). Reads never overlap; events are delivered
 * on the client's timer thread, only when the leader or term changed.
 */
final class LeaderWatch implements PubSubListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderWatch.class);
    private static final long MAX_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final LeaseElection election;
    private final RedisNode node;
    private final String channel;
    private final Consumer<LeaderEvent> events;
    private final long safetyNanos;
    private final ScheduledExecutorService scheduler;
    private Subscription subscription;
    private ScheduledFuture<?> timer;
    private boolean reading;
    private boolean again;
    private boolean closed;
    private boolean first = true;
    private String lastId;
    private OptionalLong lastTerm = OptionalLong.empty();

    LeaderWatch(LeaseElection election, RedisNode node, String channel, Consumer<LeaderEvent> events, Duration ttl,
                ScheduledExecutorService scheduler) {
        this.election = election;
        this.node = node;
        this.channel = channel;
        this.events = events;
        this.safetyNanos = ttl.toNanos();
        this.scheduler = scheduler;
    }

    void start() {
        Subscription s;
        try {
            s = node.subscribe(List.of(channel), false, this);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // observe() does not block otherwise: keep the interrupt for later
            throw new io.coordis.CoordisException(node.address(), "interrupted while opening the pub/sub connection "
                    + "to observe election '" + election.name() + "'", e);
        }
        synchronized (this) {
            subscription = s;
        }
        s.ready().whenComplete((v, f) -> {
            if (f != null) {
                log.warn("observing '{}': subscribing failed ({}); reading the leader on a timer until it works",
                        election.name(), f.getMessage());
            }
            read();
        });
    }

    @Override
    public void message(String channel, String message) {
        read();
    }

    @Override
    public void gap() {
        read();
    }

    private void read() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (reading) {
                again = true;
                return;
            }
            reading = true;
        }
        election.readLeader().whenComplete((reading, failure) -> {
            try {
                scheduler.execute(() -> onRead(reading, failure));
            } catch (RejectedExecutionException e) {
                close();
            }
        });
    }

    private void onRead(Optional<LeaseElection.Reading> reading, Throwable failure) {
        long next;
        LeaderEvent event = null;
        synchronized (this) {
            this.reading = false;
            if (closed) {
                return;
            }
            if (failure != null) {
                log.debug("observing '{}': reading the leader failed: {}", election.name(), failure.getMessage());
                next = Math.min(safetyNanos, TimeUnit.SECONDS.toNanos(1));
            } else {
                Optional<Leader> leader = reading.map(LeaseElection.Reading::leader);
                String id = leader.map(Leader::id).orElse(null);
                OptionalLong term = leader.map(Leader::term).orElse(OptionalLong.empty());
                if (first || !java.util.Objects.equals(id, lastId) || !term.equals(lastTerm)) {
                    first = false;
                    lastId = id;
                    lastTerm = term;
                    event = new LeaderEvent(leader, leader.map(election::observed).orElse(false));
                }
                long pttl = reading.map(LeaseElection.Reading::pttlMillis).orElse(-1L);
                long jitter = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1), MAX_JITTER_NANOS);
                next = pttl >= 0 ? Math.min(safetyNanos, TimeUnit.MILLISECONDS.toNanos(pttl) + jitter) : safetyNanos;
            }
            if (timer != null) {
                timer.cancel(false);
            }
            try {
                timer = scheduler.schedule(this::read, next, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                closed = true;
            }
        }
        if (event != null) {
            try {
                events.accept(event);
            } catch (RuntimeException e) {
                log.warn("an observer of '{}' failed", election.name(), e);
            }
        }
        boolean more;
        synchronized (this) {
            more = again;
            again = false;
        }
        if (more) {
            read();
        }
    }

    @Override
    public void close() {
        Subscription s;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (timer != null) {
                timer.cancel(false);
            }
            s = subscription;
        }
        if (s != null) {
            s.close();
        }
    }
}
