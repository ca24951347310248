package io.coordis.internal.lock;

import io.coordis.lock.Permit;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * In-process queue per lock key: callers of one client that want the same lock line up here in arrival
 * order, so only one of them competes at Redis at a time and none starves. A place in line is a future, so
 * nobody parks a thread to wait for it: closing a permit completes the next waiter's future (on the closing
 * thread). A permit is not tied to a thread. Entries are removed when nobody holds or waits for them.
 *
 * <p>A holder that leaves while others wait in line may leave a {@link Gift} for the next one: the lock
 * handed over at Redis already (a hand-off by {@code acquire.lua}), or a note to give other clients a moment first.
 * The gift goes with the next permit; a gift nobody claims is discarded (its {@code discard} runs once,
 * releasing what it holds), so nothing stays held when the waiter gave up.
 */
final class LocalQueue {
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    private static final class Entry {
        volatile int users; // written only inside entries.compute
        boolean taken; // guarded by this, as the rest
        final ArrayDeque<CompletableFuture<Permit>> waiters = new ArrayDeque<>();
        Gift gift;
    }

    /**
     * What a leaving holder passes to the next one in line: a lock handed over ({@code token != null}, with
     * its fencing number, the ticker time the hand-off was sent, how many hand-offs in a row led to it and the
     * ticker time the first of them was sent, and the {@code block} of fencing numbers left for handing it on
     * without a call, if any), or only a request to {@code yield} to other clients before trying. {@code discard}
     * runs if nobody claims it.
     */
    record Gift(String token, long fence, long requestStart, int chain, long chainStart, boolean yield,
                Runnable discard, Handoff.Block block) {
        static Gift yieldNote() {
            return new Gift(null, 0, 0, 0, 0, true, () -> { }, null);
        }
    }

    /** A place at the head of the queue; {@link #close()} hands it to the next waiter. Idempotent. */
    final class Permit implements AutoCloseable {
        private final String key;
        private final Entry entry;
        private final AtomicBoolean open = new AtomicBoolean(true);
        private Gift gift; // taken with the place; touched only by the permit's owner

        private Permit(String key, Entry entry) {
            this.key = key;
            this.entry = entry;
            synchronized (entry) {
                this.gift = entry.gift;
                entry.gift = null;
            }
        }

        /** The gift the previous holder left, once; {@code null} if none. The caller now owns it. */
        Gift claimGift() {
            Gift g = gift;
            gift = null;
            return g;
        }

        /** Whether other callers of this client wait in line behind this permit now. */
        boolean othersWaiting() {
            return entry.users > 1;
        }

        /** Leaves {@code next} for whoever gets the place after this permit closes. */
        void leave(Gift next) {
            synchronized (entry) {
                entry.gift = next;
            }
        }

        /**
         * Leaves {@code next} and hands the place on, in one step, from any thread: the holder's own gift was
         * claimed when it took the place. {@code false}, leaving nothing, when the place was handed on already.
         */
        boolean handOn(Gift next) {
            if (!open.compareAndSet(true, false)) {
                return false;
            }
            synchronized (entry) {
                entry.gift = next;
            }
            free();
            return true;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                Gift unclaimed = claimGift();
                if (unclaimed != null) {
                    unclaimed.discard().run();
                }
                free();
            }
        }

        /**
         * Leaves the line, then hands the place to the first waiter still waiting, or frees it: whoever gets it
         * next must not count this permit among those waiting behind it, or it would hand the lock on to nobody.
         */
        private void free() {
            LocalQueue.this.leave(key);
            handToNext(key, entry);
        }

        /** Puts back the gift this permit took with a place that its waiter did not take after all. */
        private void unclaim() {
            synchronized (entry) {
                entry.gift = gift;
                gift = null;
            }
        }
    }

    /** The permit if nobody in this process holds or is granted the lock right now, else {@code null}. */
    Permit tryEnter(String key) {
        Entry entry = join(key);
        synchronized (entry) {
            if (!entry.taken) {
                entry.taken = true;
                return new Permit(key, entry);
            }
        }
        leave(key);
        return null;
    }

    /**
     * A place in line: the future completes with the permit when it is this caller's turn (at once when the
     * place is free). The caller gives up by completing the future itself (with {@code null}, or by cancelling
     * it): the waiter then leaves the line, and a place handed to it at that instant goes to the next one.
     */
    CompletableFuture<Permit> enter(String key) {
        Entry entry = join(key);
        CompletableFuture<Permit> place;
        synchronized (entry) {
            if (!entry.taken) {
                entry.taken = true;
                return CompletableFuture.completedFuture(new Permit(key, entry));
            }
            place = new CompletableFuture<>();
            entry.waiters.add(place);
        }
        place.whenComplete((permit, failure) -> {
            if (permit == null) {
                synchronized (entry) {
                    entry.waiters.remove(place);
                }
                leave(key);
            }
        });
        return place;
    }

    /**
     * Gives the place of {@code entry} to its first waiter that still waits, completing its future on this thread
     * (outside the entry's lock), or marks it free when nobody waits.
     */
    private void handToNext(String key, Entry entry) {
        while (true) {
            CompletableFuture<Permit> next;
            Gift orphan = null;
            synchronized (entry) {
                next = entry.waiters.poll();
                if (next == null) {
                    entry.taken = false;
                    if (entry.users == 0) {
                        // everybody left while the gift was out with a waiter that gave up: nobody will claim it
                        orphan = entry.gift;
                        entry.gift = null;
                    }
                }
            }
            if (next == null) {
                if (orphan != null) {
                    orphan.discard().run();
                }
                return;
            }
            Permit permit = new Permit(key, entry);
            if (next.complete(permit)) {
                return;
            }
            permit.unclaim(); // that waiter gave up just now: the next one gets the place and the gift
        }
    }

    /** How many keys have holders or waiters (for tests: entries must not leak). */
    int size() {
        return entries.size();
    }

    private Entry join(String key) {
        return entries.compute(key, (k, e) -> {
            Entry entry = e == null ? new Entry() : e;
            entry.users++;
            return entry;
        });
    }

    private void leave(String key) {
        Entry[] removed = new Entry[1];
        entries.computeIfPresent(key, (k, e) -> {
            if (--e.users == 0) {
                removed[0] = e;
                return null;
            }
            return e;
        });
        if (removed[0] != null) {
            Gift orphan;
            synchronized (removed[0]) {
                orphan = removed[0].gift;
                removed[0].gift = null;
            }
            if (orphan != null) {
                orphan.discard().run();
            }
        }
    }
}
