package io.coordis.lock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * In-process queue per lock key: callers of one client that want the same lock line up here in arrival
 * order (a fair semaphore), so only one of them competes at Redis at a time and none starves. A permit is
 * not tied to a thread. Entries are removed when nobody holds or waits for them.
 *
 * <p>A holder that leaves while others wait in line may leave a {@link Gift} for the next one: the lock
 * handed over at Redis already (a hand-off by {@code acquire.lua}), or a note to give other clients a moment first.
 * The gift goes with the next permit; a gift nobody claims is discarded (its {@code discard} runs once,
 * releasing what it holds), so nothing stays held when the waiter gave up.
 */
final class LocalQueue {
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    private static final class Entry {
        final Semaphore semaphore = new Semaphore(1, true);
        volatile int users; // written only inside entries.compute
        Gift gift; // guarded by this
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
         * Leaves the line, then frees the place: whoever gets it next must not count this permit among those
         * waiting behind it, or it would hand the lock on to nobody.
         */
        private void free() {
            LocalQueue.this.leave(key);
            entry.semaphore.release();
        }
    }

    /** The permit if nobody in this process holds or is granted the lock right now, else {@code null}. */
    Permit tryEnter(String key) {
        Entry entry = join(key);
        if (entry.semaphore.tryAcquire()) {
            return new Permit(key, entry);
        }
        leave(key);
        return null;
    }

    /** Waits in line up to {@code timeoutNanos}; {@code null} when the time ran out. */
    Permit enter(String key, long timeoutNanos) throws InterruptedException {
        Entry entry = join(key);
        boolean granted = false;
        try {
            granted = entry.semaphore.tryAcquire(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
            return granted ? new Permit(key, entry) : null;
        } finally {
            if (!granted) {
                leave(key);
            }
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
