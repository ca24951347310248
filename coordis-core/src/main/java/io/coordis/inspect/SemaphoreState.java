package io.coordis.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A semaphore as read from Redis in one atomic step. Holders whose expiry has passed are left out (they hold
 * nothing, whether or not an acquisition has dropped them yet), and so are waiters whose place has lapsed.
 * Immutable.
 *
 * @param name         the semaphore's name (its holders' key)
 * @param permits      the stored permit count; empty when none is stored (not used yet, or idle: an idle semaphore's
 *                     count expires, and its next acquisition stores the count it was made with)
 * @param held         permits held now, the sum over {@code holders}
 * @param fencingCounter the last fencing number handed out; empty when none was
 * @param holders      the live holders, soonest expiry first
 * @param waiters      the waiters in line, first in line first
 */
public record SemaphoreState(String name, OptionalInt permits, int held, OptionalLong fencingCounter,
                             List<Holder> holders, List<Waiter> waiters)
        implements ObjectState {

    /**
     * Copies the lists, so the state cannot change.
     *
     * @param name         the semaphore's name (its holders' key)
     * @param permits      the stored permit count; empty when none is stored (not used yet, or idle: an idle semaphore's
     *                     count expires, and its next acquisition stores the count it was made with)
     * @param held         permits held now, the sum over {@code holders}
     * @param fencingCounter the last fencing number handed out; empty when none was
     * @param holders      the live holders, soonest expiry first
     * @param waiters      the waiters in line, first in line first
     */
    public SemaphoreState {
        holders = List.copyOf(holders);
        waiters = List.copyOf(waiters);
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.SEMAPHORE;
    }

    /**
     * One holder.
     *
     * @param token    the acquisition's token
     * @param permits  how many permits it holds (0 when its details are missing: another client wrote it)
     * @param holderId who holds it, as its client described itself
     * @param fence    its fencing number
     * @param since    when it was acquired (server clock)
     * @param ttl      time left before it expires unless renewed
     */
    public record Holder(String token, int permits, Optional<String> holderId, OptionalLong fence,
                         Optional<Instant> since, Duration ttl) {
    }

    /**
     * One waiter in line.
     *
     * @param token   the token it will hold the permits under
     * @param waiting how long it has stood in line
     * @param lapsesIn time left before its place lapses unless it renews it (it does while it waits)
     */
    public record Waiter(String token, Duration waiting, Duration lapsesIn) {
    }
}
