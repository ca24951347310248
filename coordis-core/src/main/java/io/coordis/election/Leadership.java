package io.coordis.election;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * One term of leadership won by a {@link LeaderElection} candidate. The leadership renews itself every
 * TTL/3 until it is resigned or lost. Thread-safe.
 *
 * <p>Safety: the leader counts itself leader only until start of its last successful renewal + TTL −
 * drift, measured on the monotonic clock, which is before the key can expire in Redis and so before any
 * other candidate can be elected (as long as Redis keeps its data). A process that was paused (GC,
 * SIGSTOP) past that deadline sees {@link #isHeld()} {@code false} on its first check after resuming.
 * Pass {@link #term()} to whatever the leader writes, so that a resource can refuse a stale leader.
 *
 * <p>Closing resigns, so a leadership can be held for the length of a {@code try}-with-resources block, as a lock's
 * {@link io.coordis.lock.Lease} can.
 */
public interface Leadership extends AutoCloseable {

    /**
     * The election's name.
     *
     * @return the name
     */
    String name();

    /**
     * This candidate's id, the value of the election's key while it leads.
     *
     * @return the candidate id
     */
    String candidateId();

    /**
     * The term: grows with every new leadership of this election; the fencing token for writes.
     *
     * @return the term, 1 or more
     */
    long term();

    /**
     * Whether this leadership still holds: not resigned, not lost, and its local deadline not passed.
     * Once {@code false}, never {@code true} again. Does not block.
     *
     * @return {@code true} while the leadership holds
     */
    boolean isHeld();

    /**
     * Time left until the local deadline; zero once the leadership is over.
     *
     * @return the time left, never negative
     */
    Duration remainingValidity();

    /**
     * Completes (with this leadership) when it is lost while still held: a renewal found the term gone or taken,
     * or the local deadline passed without a successful renewal. Never completes after a resignation.
     * Completes on the client's callback executor ({@link io.coordis.Coordis.Builder#callbackExecutor}), so a
     * callback that blocks holds up no renewal.
     *
     * @return a stage completed on loss, never after a resignation
     */
    CompletionStage<Leadership> lost();

    /**
     * Ends this leadership: deletes the election's key if it still holds this id and term, and notifies
     * waiting candidates so that one takes over at once. Blocks for one round trip.
     *
     * @return {@code true} if this call deleted the key; {@code false} if the leadership was over already
     * @throws io.coordis.CoordisException when Redis cannot be reached (the leadership is over locally
     *                                     anyway; the resignation is sent once more without waiting, and
     *                                     if that is lost too the key expires by its TTL)
     */
    boolean resign();

    /** Same as {@link #resign()}, ignoring its answer. */
    @Override
    default void close() {
        resign();
    }
}
