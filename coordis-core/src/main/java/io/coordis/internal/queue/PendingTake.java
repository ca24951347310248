package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Failures;
import io.coordis.internal.Timer;
import io.coordis.internal.contest.Answer;
import io.coordis.internal.contest.Contest;
import io.coordis.internal.contest.Contestant;
import io.coordis.internal.redis.BlockingConnection;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

/**
 * One {@link Consumer#takeAsync} of a {@link SlotConsumer}, a {@link Contest} on replies and the timer, no thread
 * waiting: a free slot (in line behind earlier such takes when none is free), {@code settle.lua} to hand out what
 * the slot or the queue holds, and while the queue is empty a {@code BLMOVE} into the slot on the slot's own
 * connection (at most the time left, at most the heartbeat TTL), then {@code settle.lua} again. {@link #result}
 * completes with the delivery, or {@code null} when the wait ran out.
 *
 * <p>A step that fails transiently (Redis restarting, a failover) frees the slot, and the take starts again from a
 * free slot while the wait lasts, as the contest does for every wait.
 *
 * <p>So at most {@code slots} takes of one consumer wait at Redis, each on its slot's connection; the others wait
 * for a slot in the consumer without a connection. A take cancelled (or whose result was not taken) puts back what
 * it moved, counting no failed delivery ({@link SlotQueue#putBack}); one cancelled during its {@code BLMOVE} first
 * ends that command ({@code CLIENT KILL} of the slot's connection), and the slot's next take opens a new one.
 */
final class PendingTake implements Contestant<Delivery> {
    final CompletableFuture<Delivery> result;
    private final SlotConsumer consumer;
    private final SlotQueue queue;
    private final Timer timer;
    private final long deadline;
    private final Contest<Delivery> contest;
    // guarded by this
    private CompletableFuture<Integer> slotWait;
    /** The slot while this take holds it, else -1. */
    private int slot = -1;
    /** The slot's connection while a BLMOVE is out on it. */
    private BlockingConnection moving;
    /** The last look found the queue empty: the next try waits for a message first. */
    private boolean empty;
    /** The slot holds what a step brought after the take ended: it goes back to the queue. */
    private boolean full;

    PendingTake(SlotConsumer consumer, long deadline) {
        this.consumer = consumer;
        this.queue = consumer.queue();
        this.timer = queue.timer;
        this.deadline = deadline;
        this.contest = new Contest<>(this, timer, Telemetry.Wait.NONE, Math.max(0, deadline - timer.now()), false,
                Contest.Deadline.CUTS_WAITS, null);
        this.result = contest.outcome();
    }

    void start() {
        contest.start();
    }

    /** A free slot, unless this take holds one. */
    @Override
    public CompletableFuture<?> enter() {
        synchronized (this) {
            if (slot >= 0) {
                return READY;
            }
        }
        CompletableFuture<Integer> w = consumer.pool().borrowAsync();
        synchronized (this) {
            slotWait = w;
        }
        CompletableFuture<Void> ready = new CompletableFuture<>();
        w.whenComplete((s, failure) -> {
            if (failure != null) {
                ready.completeExceptionally(failure);
                return;
            }
            if (contest.isOver() || !consumer.pool().enter()) {
                consumer.pool().giveBack(List.of(s));
                contest.fail(consumer.pool().closedFailure()); // no-op when it ended already
            } else {
                boolean mine;
                synchronized (this) {
                    mine = !contest.isOver();
                    if (mine) {
                        slot = s;
                        empty = false;
                        full = false;
                    }
                }
                if (!mine) {
                    consumer.pool().giveBack(List.of(s));
                    consumer.pool().exit();
                }
            }
            ready.complete(null);
        });
        return ready;
    }

    /** A look into the slot, or after an empty one a wait for a message to move into it, then a look. */
    @Override
    public CompletableFuture<Answer<Delivery>> attempt(boolean waits) {
        int s;
        boolean wait;
        synchronized (this) {
            s = slot;
            wait = empty;
        }
        CompletableFuture<Answer<Delivery>> answer = new CompletableFuture<>();
        if (wait) {
            move(s, answer);
        } else {
            look(s, answer);
        }
        return answer;
    }

    /** settle.lua into the slot: what it holds, else the queue's next message. Beats first when the beat is old. */
    private void look(int s, CompletableFuture<Answer<Delivery>> answer) {
        CompletableFuture<Void> beat = consumer.upkeep().stale() ? consumer.upkeep().beatAsync()
                : CompletableFuture.completedFuture(null);
        beat.thenCompose(v -> queue.settleAndTakeAsync(consumer.id(), List.of(), List.of(s),
                        consumer.pool()::lookInto))
                .whenComplete((taken, failure) -> {
                    if (failure != null) {
                        release(s, true);
                        answer.completeExceptionally(failure);
                        return;
                    }
                    consumer.pool().looked(List.of(s));
                    SlotQueue.Taken t = taken.taken().get(0);
                    if (t.payload() == null) {
                        synchronized (this) {
                            empty = true;
                        }
                        answer.complete(Answer.busy(0));
                    } else if (contest.isOver()) {
                        undo(null);
                        answer.complete(Answer.busy(0));
                    } else {
                        answer.complete(Answer.won(consumer.delivery(s, t)));
                    }
                });
    }

    /** BLMOVE into the slot on its own connection, for the time left (at most the heartbeat TTL), then a look. */
    private void move(int s, CompletableFuture<Answer<Delivery>> answer) {
        BlockingConnection on;
        try {
            on = consumer.connections().open(s);
        } catch (RuntimeException e) {
            release(s, false);
            answer.completeExceptionally(e);
            return;
        }
        synchronized (this) {
            empty = false;
            if (contest.isOver()) {
                on = null;
            } else {
                moving = on;
            }
        }
        if (on == null) {
            answer.complete(Answer.busy(0));
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
                        if (contest.isOver()) {
                            undo(null);
                            answer.complete(Answer.busy(0));
                        } else {
                            lookAfterFailure(s, failure, answer);
                        }
                    } else if (moved != null) {
                        answer.complete(Answer.won(new SlotDelivery(
                                new DeliveryRef(consumer.id(), s, consumer.nextNumber(s)), moved,
                                () -> queue.lists.hgetNumber(queue.keys.attempts, SlotQueue.sha1(moved)),
                                queue.lists.commandTimeout(), timer.now(), consumer)));
                    } else if (contest.isOver()) {
                        answer.complete(Answer.busy(0));
                    } else {
                        look(s, answer);
                    }
                });
    }

    /** After a failed move: hands out what the slot holds, or fails with the move's failure. */
    private void lookAfterFailure(int s, Throwable moveFailure, CompletableFuture<Answer<Delivery>> answer) {
        queue.settleAndTakeAsync(consumer.id(), List.of(), List.of(s), SlotQueue.LOOK)
                .whenComplete((taken, failure) -> {
                    if (failure != null) {
                        release(s, true);
                        answer.completeExceptionally(moveFailure);
                        return;
                    }
                    consumer.pool().looked(List.of(s));
                    SlotQueue.Taken t = taken.taken().get(0);
                    if (t.payload() != null) {
                        answer.complete(Answer.won(consumer.delivery(s, t)));
                    } else {
                        release(s, false);
                        answer.completeExceptionally(moveFailure);
                    }
                });
    }

    /** After an empty look, the next try moves at once. */
    @Override
    public CompletableFuture<Boolean> pause(Answer<Delivery> busy, long maxNanos) {
        return CompletableFuture.completedFuture(true);
    }

    /** What the slot holds goes back when the take closes. */
    @Override
    public synchronized void undo(Delivery won) {
        full = true;
    }

    @Override
    public Throwable named(Throwable failure) {
        return failure instanceof CoordisException c ? Failures.about(Failures.object("queue", queue.name()), c)
                : failure;
    }

    /** However the result came: leaves the line for a slot, ends a BLMOVE cut short by a cancel. */
    @Override
    public void ended(Delivery won, Throwable failure) {
        BlockingConnection cut;
        CompletableFuture<Integer> w;
        synchronized (this) {
            cut = failure instanceof CancellationException ? moving : null;
            w = slotWait;
        }
        if (w != null && !w.isDone()) {
            w.cancel(false);
        }
        if (cut != null) {
            cut.abandonAsync(); // the move fails, and its answer puts back what it may have moved
        }
    }

    /** The delivery holds the slot now; otherwise the slot is freed, after putting back what it holds. */
    @Override
    public void close(Delivery won, Throwable failure) {
        if (won != null) {
            synchronized (this) {
                slot = -1;
            }
            consumer.pool().exit();
            return;
        }
        int s;
        boolean back;
        synchronized (this) {
            s = slot;
            back = full;
        }
        if (s >= 0 && back) {
            putBack(s);
        } else if (s >= 0) {
            release(s, false);
        }
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
        consumer.pool().giveBack(List.of(s), suspect);
        if (mine) {
            consumer.pool().exit();
        }
    }
}
