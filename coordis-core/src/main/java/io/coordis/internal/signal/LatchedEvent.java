package io.coordis.internal.signal;

import io.coordis.CoordisException;
import io.coordis.internal.Durations;
import io.coordis.internal.Named;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Replies;
import io.coordis.signal.Event;
import io.coordis.signal.Signal;
import io.coordis.signal.Waiter;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Event}: {@code event-set.lua} records and publishes; waiters subscribe first, then read the
 * key, and read it again after every gap.
 */
final class LatchedEvent extends Named implements Event {
    private static final Logger log = LoggerFactory.getLogger(LatchedEvent.class);
    private static final int RECHECK_ATTEMPTS = 20;
    private static final Duration RECHECK_PAUSE = Duration.ofMillis(100);

    private final PubSubSignals signals;
    private final Duration ttl;

    LatchedEvent(PubSubSignals signals, String name, Duration ttl) {
        super("event", name, SignalLayout.eventKey(signals.namespace().key(name)));
        this.signals = signals;
        this.ttl = ttl;
    }

    @Override
    public Duration ttl() {
        return ttl;
    }

    @Override
    public long signal(String data) {
        signals.requireData(data, "event", name);
        RedisNode master = signals.master();
        try {
            Object reply = master.awaitUninterruptibly(master.eval(PubSubSignals.EVENT_SET, List.of(key),
                    List.of(signals.namespace().channel(name), data, Durations.millis(ttl))), master.commandTimeout());
            return Replies.number(Replies.list(reply, 1, PubSubSignals.EVENT_SET, master.address()), 0,
                    PubSubSignals.EVENT_SET, master.address());
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public boolean clear() {
        RedisNode master = signals.master();
        try {
            return master.awaitUninterruptibly(master.del(key), master.commandTimeout()) > 0;
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public Optional<String> peek() {
        RedisNode master = signals.master();
        try {
            return Optional.ofNullable(master.awaitUninterruptibly(signals.read(key),
                    master.commandTimeout().multipliedBy(2)));
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public Waiter waiter() throws InterruptedException {
        OneShot w = signals.oneShot(List.of(name), false, this::recheck, object());
        try {
            RedisNode master = signals.master();
            String recorded = master.await(signals.read(key), master.commandTimeout().multipliedBy(2));
            if (recorded != null) {
                w.complete(new Signal(name, recorded));
            }
            return w;
        } catch (CoordisException e) {
            w.close();
            throw named(e);
        } catch (InterruptedException | RuntimeException e) {
            w.close();
            throw e;
        }
    }

    /**
     * After a gap: a signal published during the outage is still in the key (within its TTL). The command
     * connection may still be reconnecting, so a failed read is retried a few times.
     */
    private void recheck(OneShot w) {
        recheck(w, RECHECK_ATTEMPTS);
    }

    private void recheck(OneShot w, int attemptsLeft) {
        signals.read(key).whenComplete((recorded, failure) -> {
            if (recorded != null) {
                w.complete(new Signal(name, recorded));
            } else if (failure != null && attemptsLeft > 1 && !w.whenSignalled().toCompletableFuture().isDone()) {
                CompletableFuture.delayedExecutor(RECHECK_PAUSE.toMillis(), TimeUnit.MILLISECONDS)
                        .execute(() -> recheck(w, attemptsLeft - 1));
            } else if (failure != null) {
                log.warn("event '{}': could not read {} after a reconnect; a signal sent meanwhile may be missed: {}",
                        name, key, failure.getMessage());
            }
        });
    }

    @Override
    public Optional<Signal> await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout must not be null");
        try (Waiter w = waiter()) {
            return w.await(timeout);
        }
    }

    @Override
    public String toString() {
        return "Event[" + name + ", key " + key + ", ttl " + ttl + "]";
    }
}
