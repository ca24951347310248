package io.coordis.internal.lock;

import java.util.List;

/**
 * One lock's keys as its scripts take them (the layout is {@link LockLayout}'s): the lock key, its fencing
 * counter, its holder details, and its release channel, which is also the name of the waiter marker key. The key
 * lists are built once per lock, since every try and release sends one. Immutable.
 */
final class LockKeys {
    private final String lock;
    private final String fence;
    private final String holder;
    private final String released;
    private final List<String> acquire;
    private final List<String> release;
    private final List<String> extend;
    private final List<String> note;

    private LockKeys(String lock, String fence, String holder, String released) {
        this.lock = lock;
        this.fence = fence;
        this.holder = holder;
        this.released = released;
        this.acquire = List.of(lock, fence, holder, released);
        this.release = List.of(lock, released, holder);
        this.extend = List.of(lock, holder);
        this.note = List.of(lock, holder, released);
    }

    static LockKeys of(String key) {
        return new LockKeys(key, LockLayout.fenceKey(key), LockLayout.holderKey(key), LockLayout.releasedChannel(key));
    }

    /** The lock key. */
    String lock() {
        return lock;
    }

    /** The lock's fencing counter. */
    String fence() {
        return fence;
    }

    /** The lock's holder details. */
    String holder() {
        return holder;
    }

    /** The lock's release channel, also the name of its waiter marker key. */
    String released() {
        return released;
    }

    /** The keys of {@code acquire.lua} (acquisitions and hand-offs): lock, fence, holder details, waiter marker. */
    List<String> acquire() {
        return acquire;
    }

    /**
     * The keys of {@code release.lua} and {@code release-after.lua}: lock, waiter marker, and holder details (which
     * go with the hold).
     */
    List<String> release() {
        return release;
    }

    /** The keys of a plain {@code extend.lua}: lock and holder details (which follow the lock's expiry). */
    List<String> extend() {
        return extend;
    }

    /** The keys of {@code extend.lua} noting a lease handed on inside the client: lock, holder details, marker. */
    List<String> note() {
        return note;
    }

    /** The keys of a read of the holder ({@code claim.lua}): lock and holder details. */
    List<String> inspect() {
        return extend;
    }
}
