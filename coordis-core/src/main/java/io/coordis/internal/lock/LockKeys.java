package io.coordis.internal.lock;

import java.util.List;

/**
 * One lock's keys as its scripts take them (the layout is {@link LockLayout}'s): the lock key, its fencing
 * counter, its holder details, and its release channel, which is also the name of the waiter marker key.
 */
record LockKeys(String lock, String fence, String holder, String released) {
    static LockKeys of(String key) {
        return new LockKeys(key, LockLayout.fenceKey(key), LockLayout.holderKey(key), LockLayout.releasedChannel(key));
    }

    /** The keys of {@code acquire.lua} (acquisitions and hand-offs): lock, fence, holder details, waiter marker. */
    List<String> acquire() {
        return List.of(lock, fence, holder, released);
    }

    /**
     * The keys of {@code release.lua} and {@code release-after.lua}: lock, waiter marker, and holder details (which
     * go with the hold).
     */
    List<String> release() {
        return List.of(lock, released, holder);
    }

    /** The keys of a plain {@code extend.lua}: lock and holder details (which follow the lock's expiry). */
    List<String> extend() {
        return List.of(lock, holder);
    }

    /** The keys of {@code extend.lua} noting a lease handed on inside the client: lock, holder details, marker. */
    List<String> note() {
        return List.of(lock, holder, released);
    }

    /** The keys of a read of the holder ({@code claim.lua}): lock and holder details. */
    List<String> inspect() {
        return List.of(lock, holder);
    }
}
