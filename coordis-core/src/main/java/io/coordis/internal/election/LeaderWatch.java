package io.coordis.internal.election;

import io.coordis.CoordisException;
import io.coordis.election.Leader;
import io.coordis.election.LeaderEvent;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.ReleaseWaiter;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.Node;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One observer of an election. Reads the leader once the subscription to the election's channel is
 * confirmed, again on every announcement (election, resignation) and after a pub/sub gap, and when the
 * leader's TTL runs out (a timer at the reported TTL plus jitter, at most one TTL of the options as a
 * safety net for keys without expiry and lost announcements). Reads never overlap; events are delivered
 * in order on the client's callback executor, only when the leader or term changed.
 */
final class LeaderWatch implements PubSubListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderWatch.class);

    private final String name;
    private final LeaderReader reader;
    private final Node node;
    private final String channel;
    private final Consumer<LeaderEvent> events;
    /** The observer's calls, in order, on the client's callback executor. */
    private final Executor observerCalls;
    private final long safetyNanos;
    private final Timer timer;
    private ChannelRegistration subscription;
    private Timer.Handle next;
    private boolean reading;
    private boolean again;
    private boolean closed;
    private boolean first = true;
    private String lastId;
    private OptionalLong lastTerm = OptionalLong.empty();

    LeaderWatch(String name, LeaderReader reader, Node node, String channel, Consumer<LeaderEvent> events,
                Duration ttl, Timer timer) {
        this.name = name;
        this.reader = reader;
        this.node = node;
        this.channel = channel;
        this.events = events;
        this.observerCalls = timer.inOrder();
        this.safetyNanos = ttl.toNanos();
        this.timer = timer;
    }

    void start() {
        ChannelRegistration s;
        try {
            s = node.subscribe(List.of(channel), false, this);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // observe() does not block otherwise: keep the interrupt for later
            throw new CoordisException(node.address(), "interrupted while opening the pub/sub connection "
                    + "to observe election '" + name + "'", e);
        }
        synchronized (this) {
            subscription = s;
        }
        s.ready().whenComplete((v, f) -> {
            if (f != null) {
                log.warn("observing '{}': subscribing failed ({}); reading the leader on a timer until it works",
                        name, f.getMessage());
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
        reader.read().whenComplete((reading, failure) -> {
            if (timer.isClosed()) {
                close();
            } else {
                timer.execute(() -> onRead(reading, failure));
            }
        });
    }

    private void onRead(Optional<LeaderReader.Reading> reading, Throwable failure) {
        long delay;
        LeaderEvent event = null;
        synchronized (this) {
            this.reading = false;
            if (closed) {
                return;
            }
            if (failure != null) {
                log.debug("observing '{}': reading the leader failed: {}", name, failure.getMessage());
                delay = Math.min(safetyNanos, TimeUnit.SECONDS.toNanos(1));
            } else {
                Optional<Leader> leader = reading.map(LeaderReader.Reading::leader);
                String id = leader.map(Leader::id).orElse(null);
                OptionalLong term = leader.map(Leader::term).orElse(OptionalLong.empty());
                if (first || !Objects.equals(id, lastId) || !term.equals(lastTerm)) {
                    first = false;
                    lastId = id;
                    lastTerm = term;
                    event = new LeaderEvent(leader, leader.map(reader::observed).orElse(false));
                }
                long pttl = reading.map(LeaderReader.Reading::pttlMillis).orElse(-1L);
                delay = pttl >= 0 ? Math.min(safetyNanos, ReleaseWaiter.untilExpiry(pttl)) : safetyNanos;
            }
            if (next != null) {
                next.cancel();
            }
            next = timer.after(delay, this::read);
            closed = timer.isClosed();
        }
        if (event != null) {
            LeaderEvent changed = event;
            observerCalls.execute(() -> {
                try {
                    events.accept(changed);
                } catch (RuntimeException e) {
                    log.warn("an observer of '{}' failed", name, e);
                }
            });
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
        ChannelRegistration s;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (next != null) {
                next.cancel();
            }
            s = subscription;
        }
        if (s != null) {
            s.close();
        }
    }
}
