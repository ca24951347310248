package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.internal.Failures;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.ListCommands;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One {@link Consumer#takeAsync} of a {@link SlotConsumer}, as steps on replies and the timer, no thread waiting:
 * a free slot (in line behind earlier such takes when none is free), {@code settle.lua} to hand out what the slot
 * or the queue holds, and while the queue is empty a {@code BLMOVE} into the slot on the slot's own connection
 * (at most the time left, at most the heartbeat TTL), then {@code settle.lua} again. {@link #result} completes with
 * the delivery, or {@code null} when the wait ran out.
 *
 * <p>A step that fails transiently (Redis restarting, a failover) frees the slot, and the take starts again from a
 * free slot while the wait lasts, as {@link Outages} says.
 *
 * <p>So at most {@code slots} takes of one consumer wait at Redis, each on its slot's connection; the others wait
 * for a slot in the consumer without a connection. A take cancelled (or whose result was not taken) puts back what
 * it moved, counting no failed delivery ({@link SlotQueue#putBack}); one cancelled during its {@code BLMOVE} first
 * ends that command ({@code CLIENT KILL} of the slot's connection), and the slot's next take opens a new one.
 */
final class PendingTake {
    final CompletableFuture<Delivery> result = new CompletableFuture<>();
    private final SlotConsumer consumer;
    private final SlotQueue queue;
    private final Timer timer;
    private final long deadline;
    private CompletableFuture<Integer> slotWait;
    /** The slot while this take holds it, else -1; guarded by this. */
    private int slot = -1;
    /** The slot's connection while a BLMOVE is out on it; guarded by this. */
    private ListCommands.Blocking moving;
    private Timer.Handle expiry;
    /** The transient failure of the last step, ridden out while the wait lasts ({@link Outages}); guarded by this. */
    private Throwable outage;
    /** Transient failures in a row; guarded by this. */
    private int outages;

    PendingTake(SlotConsumer consumer, long deadline) {
        this.consumer = consumer;
        this.queue = consumer.queue();
        this.timer = queue.timer;
        this.deadline = deadline;
    }

    void start() {
        result.whenComplete((v, f) -> ended());
        expiry = timer.coarse(deadline - timer.now(), this::expired);
        borrow();
    }

    /** Waits for a free slot, then looks into it. */
    private void borrow() {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<Integer> w = consumer.borrowAsync();
        synchronized (this) {
            slotWait = w;
        }
        w.whenComplete((s, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            } else if (result.isDone() || !consumer.enter()) {
                consumer.giveBack(List.of(s));
                result.completeExceptionally(consumer.closedFailure()); // no-op when it ended already
            } else {
                synchronized (this) {
                    slot = s;
                }
                look(s);
            }
        });
    }

    /** settle.lua into the slot: what it holds, else the queue's next message. Beats first when the beat is old. */
    private void look(int s) {
        CompletableFuture<Void> beat = consumer.upkeep().stale() ? consumer.upkeep().beatAsync()
                : CompletableFuture.completedFuture(null);
        beat.thenCompose(v -> queue.settleAndTakeAsync(consumer.id(), List.of(), List.of(s)))
                .whenComplete((answer, failure) -> {
                    if (failure != null) {
                        fail(s, failure, true);
                        return;
                    }
                    consumer.looked(s);
                    synchronized (this) {
                        outage = null;
                        outages = 0;
                    }
                    SlotQueue.Taken taken = answer.taken().get(0);
                    if (taken.payload() != null) {
                        if (result.isDone()) {
                            putBack(s);
                        } else if (!result.complete(consumer.delivery(s, taken))) {
                            putBack(s);
                        } else {
                            holdOn();
                        }
                    } else if (result.isDone()) {
                        release(s, false);
                    } else if (deadline - timer.now() <= 0) {
                        result.complete(null);
                        release(s, false);
                    } else {
                        move(s);
                    }
                });
    }

    /** BLMOVE into the slot on its own connection, for the time left (at most the heartbeat TTL). */
    private void move(int s) {
        ListCommands.Blocking on;
        try {
            on = consumer.blocking(s);
        } catch (RuntimeException e) {
            fail(s, e, false);
            return;
        }
        synchronized (this) {
            if (result.isDone()) {
                on = null;
            } else {
                moving = on;
            }
        }
        if (on == null) {
            release(s, false);
            return;
        }
        Duration block = Duration.ofNanos(Math.max(1, Math.min(deadline - timer.now(), consumer.ttlNanos())));
        on.moveAsync(queue.keys.queue, queue.keys.slot(consumer.id(), s), queue.options.order().right(), block)
                .whenComplete((moved, failure) -> {
                    synchronized (this) {
                        moving = null;
                    }
                    if (failure != null) {
                        // the move may have happened with its reply lost, or before a cancel ended it: look again
                        if (result.isDone()) {
                            putBack(s);
                        } else {
                            lookAfterFailure(s, failure);
                        }
                    } else if (moved != null) {
                        Delivery d = new SlotDelivery(new DeliveryRef(consumer.id(), s, consumer.nextNumber(s)), moved,
                                () -> queue.lists.hgetNumber(queue.keys.attempts, SlotQueue.sha1(moved)),
                                queue.lists.commandTimeout(), timer.now(), consumer);
                        if (result.complete(d)) {
                            holdOn();
                        } else {
                            putBack(s);
                        }
                    } else if (result.isDone()) {
                        release(s, false);
                    } else {
                        look(s);
                    }
                });
    }

    /** After a failed move: hands out what the slot holds, or fails with the move's failure. */
    private void lookAfterFailure(int s, Throwable moveFailure) {
        queue.settleAndTakeAsync(consumer.id(), List.of(), List.of(s)).whenComplete((answer, failure) -> {
            if (failure != null) {
                fail(s, moveFailure, true);
                return;
            }
            consumer.looked(s);
            SlotQueue.Taken taken = answer.taken().get(0);
            if (taken.payload() != null && result.complete(consumer.delivery(s, taken))) {
                holdOn();
            } else if (taken.payload() != null) {
                putBack(s);
            } else {
                fail(s, moveFailure, false);
            }
        });
    }

    /** The delivery holds the slot now: this take is over. */
    private void holdOn() {
        synchronized (this) {
            slot = -1;
        }
        consumer.exit();
    }

    /** Puts back what the slot holds (counting no failed delivery), then frees it. */
    void putBack(int s) {
        queue.putBack(consumer.id(), s).whenComplete((n, failure) -> release(s, failure != null));
    }

    private void release(int s, boolean suspect) {
        boolean mine;
        synchronized (this) {
            mine = slot == s;
            slot = -1;
        }
        consumer.giveBack(List.of(s), suspect);
        if (mine) {
            consumer.exit();
        }
    }

    /**
     * A step failed: the slot is freed (its connection replaced when {@code suspect}); a transient failure is tried
     * again from a free slot after {@link Outages}' pause while the wait lasts, so a consumer keeps consuming after
     * Redis restarts; otherwise the take fails.
     */
    private void fail(int s, Throwable failure, boolean suspect) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        Throwable named = cause instanceof CoordisException c
                ? Failures.about(Failures.object("queue", queue.name()), c) : cause;
        long left = deadline - timer.now();
        if (left <= 0 || !Outages.ridesOut(named) || result.isDone()) {
            result.completeExceptionally(named);
            release(s, suspect);
            return;
        }
        long pause;
        synchronized (this) {
            outage = named;
            pause = Outages.pauseNanos(named, ++outages, left);
        }
        release(s, suspect);
        timer.after(pause, this::borrow);
    }

    /** The deadline: ends a take waiting for a slot or between steps; a BLMOVE out ends by its own block time. */
    private void expired() {
        Throwable last;
        synchronized (this) {
            if (moving != null || slot >= 0) {
                return; // a step is out; its answer checks the deadline
            }
            last = outage;
        }
        if (last != null) {
            result.completeExceptionally(last); // Redis was unavailable until the end: say why
        } else {
            result.complete(null);
        }
    }

    /** However the result came: stops the deadline, leaves the line for a slot, ends a BLMOVE cut short by a cancel. */
    private void ended() {
        ListCommands.Blocking cut;
        CompletableFuture<Integer> w;
        synchronized (this) {
            cut = result.isCancelled() ? moving : null;
            w = slotWait;
        }
        if (expiry != null) {
            expiry.cancel();
        }
        if (w != null && !w.isDone()) {
            w.cancel(false);
        }
        if (cut != null) {
            cut.abandonAsync(); // the move fails, and its handler puts back what it may have moved
        }
    }
}
