package io.coordis.internal.queue;

import io.coordis.internal.Timer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The free slots of one {@link SlotConsumer}: which slots are free, which may hold a message nobody was handed
 * (suspect), the takes without a thread that wait in line for a slot, and how many such takes are under way. Every
 * field is guarded by the pool's one monitor; waiting takes are woken when a slot comes back or the pool closes.
 * Thread-safe.
 */
final class SlotPool {
    private final Timer timer;
    private final String owner;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    /**
     * Per slot: may hold a message nobody was handed (a take failed or was interrupted after its move was sent).
     * A take looks into such a slot with settle.lua before blocking.
     */
    private final boolean[] suspect;
    /** Takes without a thread waiting for a slot, in arrival order. */
    private final ArrayDeque<CompletableFuture<Integer>> slotWaiters = new ArrayDeque<>();
    /** Takes without a thread that are under way. */
    private int asyncTakes;
    private volatile boolean closed;

    /**
     * @param slots how many slots, all free and suspect until settle.lua has looked into them once
     * @param timer reads the deadlines of {@link #borrow} and {@link #awaitAsyncTakes}
     * @param owner names the consumer in the failure of a closed pool
     */
    SlotPool(int slots, Timer timer, String owner) {
        this.timer = timer;
        this.owner = owner;
        this.suspect = new boolean[slots];
        Arrays.fill(suspect, true); // until settle.lua has looked once
        for (int i = 0; i < slots; i++) {
            free.add(i);
        }
    }

    boolean closed() {
        return closed;
    }

    IllegalStateException closedFailure() {
        return new IllegalStateException(owner + " is closed");
    }

    /**
     * Up to {@code max} free slots, waiting until one is free or {@code deadline} (the timer's nanoseconds); none
     * when the deadline passed first.
     *
     * @throws IllegalStateException when the pool is closed
     */
    List<Integer> borrow(int max, long deadline) throws InterruptedException {
        synchronized (free) {
            while (free.isEmpty()) {
                if (closed) {
                    throw closedFailure();
                }
                long left = deadline - timer.now();
                if (left <= 0) {
                    return List.of();
                }
                TimeUnit.NANOSECONDS.timedWait(free, left);
            }
            if (closed) {
                throw closedFailure();
            }
            List<Integer> got = new ArrayList<>();
            while (got.size() < max && !free.isEmpty()) {
                got.add(free.poll());
            }
            return got;
        }
    }

    /**
     * A free slot for a take that does not wait on a thread: at once when one is free, else when one is given back
     * (slots go to such takes first, in arrival order). Cancelling the future gives up the place in line; a slot
     * handed to a future cancelled in the same instant goes back to the pool. Fails when the pool is closed.
     */
    CompletableFuture<Integer> borrowAsync() {
        synchronized (free) {
            if (closed) {
                return CompletableFuture.failedFuture(closedFailure());
            }
            if (!free.isEmpty()) {
                return CompletableFuture.completedFuture(free.poll());
            }
            CompletableFuture<Integer> waiter = new CompletableFuture<>();
            slotWaiters.add(waiter);
            return waiter;
        }
    }

    /** Counts a take that does not wait on a thread in, unless the pool is closed: {@link #awaitAsyncTakes} waits for it. */
    boolean enter() {
        synchronized (free) {
            if (closed) {
                return false;
            }
            asyncTakes++;
            return true;
        }
    }

    /** Counts such a take out. */
    void exit() {
        synchronized (free) {
            asyncTakes--;
            free.notifyAll();
        }
    }

    void giveBack(List<Integer> slots) {
        giveBack(slots, false);
    }

    /** Returns slots to the pool, to its head unless a suspect one (which may hold a moved message) is there. */
    void giveBack(List<Integer> slots, boolean suspect) {
        if (slots.isEmpty()) {
            return;
        }
        List<Integer> handed = new ArrayList<>();
        List<CompletableFuture<Integer>> to = new ArrayList<>();
        synchronized (free) {
            for (int s : slots) {
                if (free.contains(s)) {
                    continue;
                }
                this.suspect[s] |= suspect;
                CompletableFuture<Integer> waiter = closed ? null : nextSlotWaiter();
                if (waiter != null) {
                    handed.add(s); // a take waiting without a thread gets it, and looks into it first if suspect
                    to.add(waiter);
                } else {
                    // Last returned, first borrowed: a consumer taking one at a time keeps using one slot, so its
                    // settles and blocking takes stay on one warm connection; slots that may hold a moved message
                    // stay in front of it.
                    if (suspect || free.isEmpty() || !this.suspect[free.peekFirst()]) {
                        free.addFirst(s);
                    } else {
                        free.add(s);
                    }
                }
            }
            free.notifyAll();
        }
        for (int i = 0; i < handed.size(); i++) {
            if (!to.get(i).complete(handed.get(i))) {
                giveBack(List.of(handed.get(i)), false); // its take ended meanwhile
            }
        }
    }

    /** The first take in line for a slot that still waits, or {@code null}. Under {@link #free}'s monitor. */
    private CompletableFuture<Integer> nextSlotWaiter() {
        CompletableFuture<Integer> w;
        while ((w = slotWaiters.poll()) != null) {
            if (!w.isDone()) {
                return w;
            }
        }
        return null;
    }

    /** Whether {@code slot} may hold a message nobody was handed. */
    boolean isSuspect(int slot) {
        synchronized (free) {
            return suspect[slot];
        }
    }

    /** Marks {@code slot} as possibly holding a moved message: a take looks into it before blocking. */
    void suspect(int slot) {
        synchronized (free) {
            suspect[slot] = true;
        }
    }

    /**
     * Whether {@code slot} may hold a message nobody was handed, for settle.lua about to look into it or to move a
     * message into it; it stays suspect until {@link #looked} (a script whose reply is lost may have moved one).
     */
    boolean lookInto(int slot) {
        synchronized (free) {
            boolean was = suspect[slot];
            suspect[slot] = true;
            return was;
        }
    }

    /** settle.lua looked into {@code slots}: each is empty now, or its message is being handed out. */
    void looked(List<Integer> slots) {
        synchronized (free) {
            for (int s : slots) {
                suspect[s] = false;
            }
        }
    }

    /**
     * Closes the pool: waiting {@link #borrow}s fail, and so do the takes without a thread still in line.
     *
     * @return {@code false} when it was closed already
     */
    boolean close() {
        List<CompletableFuture<Integer>> waiting;
        synchronized (free) {
            if (closed) {
                return false;
            }
            closed = true;
            free.notifyAll();
            waiting = new ArrayList<>(slotWaiters);
            slotWaiters.clear();
        }
        waiting.forEach(w -> w.completeExceptionally(closedFailure()));
        return true;
    }

    /**
     * Waits until no take without a thread is under way, at most {@code maxNanos}; keeps an interrupt for the
     * caller to see.
     */
    void awaitAsyncTakes(long maxNanos) {
        long deadline = timer.now() + maxNanos;
        boolean interrupted = false;
        synchronized (free) {
            long left;
            while (asyncTakes > 0 && (left = deadline - timer.now()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(free, left);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
