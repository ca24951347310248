package io.coordis.lock;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * In-process queue per lock key: callers of one client that want the same lock line up here in arrival
 * order (a fair semaphore), so only one of them competes at Redis at a time and none starves. A permit is
 * not tied to a thread. Entries are removed when nobody holds or waits for them.
 */
final class LocalQueue {
    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    private static final class Entry {
        final Semaphore semaphore = new Semaphore(1, true);
        int users;
    }

    /** A place at the head of the queue; {@link #close()} hands it to the next waiter. Idempotent. */
    final class Permit implements AutoCloseable {
        private final String key;
        private final Entry entry;
        private final AtomicBoolean open = new AtomicBoolean(true);

        private Permit(String key, Entry entry) {
            this.key = key;
            this.entry = entry;
        }

        @Override
        public void close() {
            if (open.compareAndSet(true, false)) {
                entry.semaphore.release();
                leave(key);
            }
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
        entries.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
    }
}
