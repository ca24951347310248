package io.coordis.internal.lock;

import io.coordis.internal.Keys;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How a semaphore is kept in Redis, in one place: its keys, the holder details' format, and their reader. The
 * scripts {@code semaphore-acquire.lua}, {@code semaphore-release.lua}, {@code semaphore-extend.lua} and the
 * inspector's {@code semaphore-state.lua} point here. For a semaphore {@code pool}, all in one hash slot:
 * <pre>
 * pool                     holders, a sorted set: token -> expiry (ms since the epoch, on Redis's clock)
 * {pool}:holders           holder details, a hash: token -> "permits fence since holder-id" (since in ms since
 *                          the epoch; the holder id is the rest of the value and may contain spaces)
 * {pool}:permits           the permit count, a plain integer (written by an acquisition when absent, or setPermits)
 * {pool}:fence             fencing counter, a plain integer that never expires (as a lock's)
 * {pool}:waiters           waiters in line, a sorted set: token -> arrival (microseconds since the epoch)
 * {pool}:waiters-until     when each waiter's place lapses unless it renews it, a sorted set: token -> ms
 * {pool}:released          the channel on which releases wake the waiters
 * </pre>
 * Every key but the fencing counter has a PX reaching {@code semaphore-acquire.lua}'s margin (5 s) past the last
 * holder's expiry and the last waiter's lapse, set by each grant, place in line and renewal; the release that
 * leaves neither holder nor waiter deletes the count (the sets and the details go with their last member). An idle
 * semaphore thus leaves only its fencing counter, and its next acquisition stores the caller's count again; a count
 * written by {@code setPermits} keeps the expiry it finds ({@code KEEPTTL}), so it lasts while the semaphore is used
 * (on an idle semaphore, until its next use).
 * A holder whose expiry has passed holds nothing, whether or not an acquisition has dropped it yet. Public for the
 * inspector; applications have no need of it.
 */
public final class SemaphoreLayout {

    private SemaphoreLayout() {
    }

    /** What one holder's details say; a part that is missing or unreadable is empty. */
    public record HolderDetails(OptionalInt permits, OptionalLong fence, Optional<Instant> since,
                                Optional<String> holderId) {
    }

    /**
     * The key of a semaphore's holder details, derived from its name.
     *
     * @param name the semaphore's Redis key
     * @return the details key, in the name's hash slot
     */
    public static String detailsKey(String name) {
        return Keys.derived(name, "holders");
    }

    /**
     * The key of a semaphore's stored permit count, derived from its name.
     *
     * @param name the semaphore's Redis key
     * @return the permits key, in the name's hash slot
     */
    public static String permitsKey(String name) {
        return Keys.derived(name, "permits");
    }

    /**
     * The key of a semaphore's fencing counter, the same as a lock's of that name.
     *
     * @param name the semaphore's Redis key
     * @return the fence key, in the name's hash slot
     */
    public static String fenceKey(String name) {
        return LockLayout.fenceKey(name);
    }

    /**
     * The key of a semaphore's line of waiters, derived from its name.
     *
     * @param name the semaphore's Redis key
     * @return the waiters key, in the name's hash slot
     */
    public static String waitersKey(String name) {
        return Keys.derived(name, "waiters");
    }

    /**
     * The key of the times until which a semaphore's waiters keep their place, derived from its name.
     *
     * @param name the semaphore's Redis key
     * @return the key, in the name's hash slot
     */
    public static String lapsesKey(String name) {
        return Keys.derived(name, "waiters-until");
    }

    /**
     * The channel on which a release is announced, the same as a lock's of that name.
     *
     * @param name the semaphore's Redis key
     * @return the channel name, in the name's hash slot
     */
    public static String releasedChannel(String name) {
        return LockLayout.releasedChannel(name);
    }

    /** Every key of the semaphore {@code name}, as {@code semaphore-acquire.lua} takes them. */
    static List<String> acquireKeys(String name) {
        return List.of(name, detailsKey(name), permitsKey(name), fenceKey(name), waitersKey(name), lapsesKey(name));
    }

    /** The keys of {@code semaphore-release.lua}. */
    static List<String> releaseKeys(String name) {
        return List.of(name, detailsKey(name), waitersKey(name), lapsesKey(name), permitsKey(name));
    }

    /** The keys of {@code semaphore-extend.lua}, which moves their expiry along with the holder's. */
    static List<String> extendKeys(String name) {
        return List.of(name, detailsKey(name), permitsKey(name), waitersKey(name), lapsesKey(name));
    }

    /**
     * Reads one holder's details value ({@code "permits fence since holder-id"}).
     *
     * @param value the stored value; null reads as empty
     * @return the details, each part empty when missing or unreadable
     */
    public static HolderDetails holderDetails(String value) {
        String[] parts = value == null ? new String[0] : value.split(" ", 4);
        return new HolderDetails(integer(parts, 0), number(parts, 1),
                number(parts, 2).stream().mapToObj(Instant::ofEpochMilli).findFirst(),
                parts.length > 3 ? Optional.of(parts[3]) : Optional.empty());
    }

    private static OptionalInt integer(String[] parts, int i) {
        OptionalLong n = number(parts, i);
        return n.isPresent() && n.getAsLong() <= Integer.MAX_VALUE ? OptionalInt.of((int) n.getAsLong())
                : OptionalInt.empty();
    }

    private static OptionalLong number(String[] parts, int i) {
        if (parts.length <= i) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(parts[i]));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
