package io.coordis.internal.queue;

import io.coordis.internal.Timer;
import io.coordis.internal.ClosedByClientException;
import io.coordis.internal.redis.ListCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A consumer's background work, all of it on the client's timer and none of it blocking the timer: a
 * heartbeat every third of the heartbeat TTL, and a sweep of the queue every sweep interval, the first after a
 * random part of the interval so that consumers started together spread out. A sweep is a chain of commands
 * (no thread waits for it); the next one is due an interval after the last ended, so a sweep slower than the
 * interval never overlaps the next. Everything stops on {@link #stop}, or with the client's timer.
 * Thread-safe.
 */
final class Upkeep {
    private static final Logger log = LoggerFactory.getLogger(Upkeep.class);

    private final SlotQueue queue;
    private final String id;
    private final int slots;
    private final Timer timer;
    private final long beatEvery;
    private final long sweepEvery;
    private volatile long lastBeatNanos;
    private boolean stopped; // guarded by this, as the handles
    private long nextBeatAt;
    private Timer.Handle beat;
    private Timer.Handle sweep;

    Upkeep(SlotQueue queue, String id, int slots) {
        this.queue = queue;
        this.id = id;
        this.slots = slots;
        this.timer = queue.timer;
        this.beatEvery = Math.max(1, queue.options.heartbeatTtl().toNanos() / 3);
        this.sweepEvery = queue.options.sweepInterval().toNanos();
    }

    /** Beats once, waiting for the reply, then starts the timers. */
    void start() throws InterruptedException {
        beatNow();
        synchronized (this) {
            nextBeatAt = timer.now() + beatEvery;
            beat = timer.after(beatEvery, this::beatOnTime);
            sweep = timer.after(ThreadLocalRandom.current().nextLong(sweepEvery), this::sweep);
        }
    }

    /** Whether the last confirmed heartbeat was sent more than two thirds of the TTL ago. */
    boolean stale() {
        return timer.now() - lastBeatNanos > queue.options.heartbeatTtl().toNanos() * 2 / 3;
    }

    /** Beats, waiting for the reply. */
    void beatNow() throws InterruptedException {
        queue.lists.await(beatAsync());
    }

    /** Beats without waiting: completes (on the reply's thread) when Redis confirmed. */
    CompletableFuture<Void> beatAsync() {
        long sent = timer.now();
        return queue.lists.eval(SlotQueue.BEAT, beatKeys(), beatArgs()).thenAccept(reply -> lastBeatNanos = sent);
    }

    /** Stops the heartbeat and the sweeps; a sweep under way ends on its own. */
    synchronized void stop() {
        stopped = true;
        if (beat != null) {
            beat.cancel();
            sweep.cancel();
        }
    }

    /** Sends a heartbeat without waiting, and arms the next one at a fixed rate. */
    private void beatOnTime() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            nextBeatAt += beatEvery;
            beat = timer.after(nextBeatAt - timer.now(), this::beatOnTime);
        }
        long sent = timer.now();
        queue.lists.eval(SlotQueue.BEAT, beatKeys(), beatArgs()).whenComplete((reply, failure) -> {
            if (failure != null) {
                log.warn("heartbeat of consumer {} on queue '{}' failed: {}", id, queue.name(), failure.getMessage());
                return;
            }
            if (reply instanceof List<?> l && !l.isEmpty() && Long.valueOf(0).equals(l.get(0))) {
                log.warn("heartbeat of consumer {} on queue '{}' had expired: its unsettled messages may have "
                        + "been given to other consumers", id, queue.name());
            }
            lastBeatNanos = sent;
        });
    }

    private List<String> beatKeys() {
        return List.of(queue.keys.heartbeat(id), queue.keys.registry);
    }

    private List<byte[]> beatArgs() {
        long ttl = queue.options.heartbeatTtl().toMillis();
        // keep a dead consumer's registration long enough for any move it sent to be served and swept
        long retention = 3 * ttl + 60_000;
        return List.of(ListCommands.bytes(id), SlotQueue.bytes(ttl), SlotQueue.bytes(slots),
                SlotQueue.bytes(retention));
    }

    /** Sweeps the queue without blocking the timer, and arms the next sweep once this one ended. */
    private void sweep() {
        synchronized (this) {
            if (stopped) {
                return;
            }
        }
        CompletableFuture<Integer> sweeping;
        try {
            sweeping = queue.sweepAsync();
        } catch (RuntimeException e) {
            sweeping = CompletableFuture.failedFuture(e); // logged, and the next sweep still comes
        }
        sweeping.whenComplete((moved, failure) -> {
            if (failure == null) {
                if (moved > 0) {
                    log.info("put back {} message(s) of dead consumers of queue '{}'", moved, queue.name());
                }
            } else if (!timer.isClosed() && !ClosedByClientException.is(failure)) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                log.warn("sweep of queue '{}' failed: {}", queue.name(), cause.getMessage());
            }
            synchronized (this) {
                if (!stopped) {
                    sweep = timer.after(sweepEvery, this::sweep);
                }
            }
        });
    }
}
