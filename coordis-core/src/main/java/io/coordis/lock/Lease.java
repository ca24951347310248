package io.coordis.lock;

import io.coordis.NodeVote;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One acquisition of a {@link DistributedLock}: proof of ownership, valid until it is released, lost or
 * its validity runs out. Close it (try-with-resources) to release the lock.
 *
 * <p>With automatic renewal (the default) a watchdog extends the lock at a third of its TTL while the
 * lease is open. If renewal fails — the key is gone or held by someone else, or Redis could not be
 * reached before the validity ended — the lease becomes lost: {@link #isHeld()} turns false and
 * {@link #lost()} completes, at the latest when the local validity deadline passes, which is before Redis
 * lets anyone else take the lock. A holder is never left believing it still holds a lock it lost.
 *
 * <p>Thread-safe; may be released from any thread.
 */
public interface Lease extends AutoCloseable {

    /**
     * The resource name as the caller gave it.
     *
     * @return the name
     */
    String name();

    /**
     * The Redis key the lock lives in.
     *
     * @return the key, prefix included
     */
    String key();

    /**
     * The fencing number of this acquisition: it grows with every acquisition of this lock, so a
     * protected resource can reject writes carrying a number lower than one it has already seen.
     *
     * @return the fencing number
     */
    long fencingToken();

    /**
     * The value this acquisition wrote at the key: for the default lock a random token unique to the
     * acquisition (what compare-and-delete compares); for the legacy lock the expiry time it first wrote
     * (renewal writes later ones). A lease handed on inside one client without a call keeps the token of the
     * acquisition at Redis it continues; the {@linkplain #fencingToken() fencing numbers} tell such leases apart.
     *
     * @return the value written at the key
     */
    String token();

    /**
     * How each node voted for this acquisition (one vote for a single-node lock), in the order the nodes
     * were configured.
     *
     * @return the votes, one per node
     */
    List<NodeVote> votes();

    /**
     * Whether this process still holds the lock as far as it can know locally: not released, not lost, and
     * the validity deadline (last successful acquire/renew start + TTL − clock drift) not yet passed.
     *
     * @return {@code true} while held
     */
    boolean isHeld();

    /**
     * Validity left by the local deadline; {@link Duration#ZERO} once not held.
     *
     * @return the validity left, never negative
     */
    Duration remainingValidity();

    /**
     * Completes (with this lease) when the lock is lost while still open: renewal found it gone or taken,
     * or the validity ran out without a successful renewal. Never completes after a normal release.
     * Completes on the client's callback executor ({@link io.coordis.Coordis.Builder#callbackExecutor}), so a
     * callback that blocks holds up no renewal of this or any other lease.
     *
     * @return a stage completed on loss, never after a release
     */
    CompletionStage<Lease> lost();

    /**
     * Extends the lock to {@code ttl} from now, if it is still ours.
     *
     * @param ttl the new time to live, from now
     * @return {@code true} when extended; {@code false} when the lock is no longer ours (the lease is then lost)
     * @throws IllegalArgumentException when {@code ttl} is outside {@link LockOptions#MIN_TTL} and
     *                                  {@link LockOptions#MAX_TTL}
     * @throws io.coordis.CoordisException when Redis could not be reached, naming the lock
     */
    boolean extend(Duration ttl);

    /**
     * Releases the lock if it is still ours (compare-and-delete), stops renewal and lets the next local
     * waiter in. Idempotent.
     *
     * @return {@code true} when this call deleted our key; {@code false} when it was no longer ours or
     *         already released
     * @throws io.coordis.CoordisException when Redis could not be reached; the lock then expires by its TTL at
     *                                     the latest (a single-node lock sends the release once more at once,
     *                                     not waited for, on a new connection after a timeout).
     *                                     Never thrown for a lease already lost: that holder was told.
     */
    boolean release();

    /**
     * Ends this lease now but leaves the lock taken at Redis for {@code keepFor} more, after which its key expires:
     * if the key still holds this lease's token, its TTL becomes {@code keepFor} (compare-and-pexpire, longer or
     * shorter than what was left) and waiting clients are told to read the new expiry. Renewal stops, the lease is
     * no longer held, and the next caller of this client may try at once (it finds the lock busy until then). For
     * work that must not run again before a time, such as a scheduled job's "lock at least for". A
     * {@code keepFor} of zero or less is {@link #release()}. Idempotent, like {@link #release()}.
     *
     * @param keepFor how long the key stays after this call
     * @return {@code true} when the key was still ours and now expires after {@code keepFor} (or, for zero or less,
     *         was deleted); {@code false} when it was no longer ours or the lease had ended already
     * @throws IllegalArgumentException when {@code keepFor} is above {@link LockOptions#MAX_TTL}
     * @throws io.coordis.CoordisException as {@link #release()}; the key then expires by its TTL at the latest
     */
    boolean releaseAfter(Duration keepFor);

    /** Same as {@link #release()}, ignoring its answer. */
    @Override
    void close();
}
