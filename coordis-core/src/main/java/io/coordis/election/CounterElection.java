package io.coordis.election;

import java.time.Duration;

/**
 * The classic incumbent-favouring counter election on a caller-named key, wire-compatible with the
 * widely copied {@code master()} function (Python: {@code INCR master_selector}, then
 * {@code EXPIRE master_selector 20} while leading): clients running that function on the same key take
 * part in the same election.
 *
 * <p>Each candidate calls {@link #round()} periodically (well within the term, e.g. every term/3). A
 * round increments the key: 1 means nobody led and the caller leads; a leader keeps leading while the
 * value it remembers is not above the new value and refreshes the key's expiry (the term); a remembered
 * value above the new one means Redis was reset or failed over, and it steps down.
 *
 * <p>Plus the check the classic function leaves to its callers: a leader whose last successful round
 * started a term (minus drift) ago or longer is not leader locally from that moment on
 * ({@link #isLeader()} turns false), and forgets its remembered value before its next round. Without it,
 * a leader that stalled past its term while others counted the key up again would keep believing it
 * leads. Note that this election has no fencing token: the counter restarts at 1 with every leader.
 *
 * <p>Limitation kept for compatibility: a candidate that dies between its winning INCR and the EXPIRE
 * leaves a key without expiry (the classic function's two commands; Coordis sends both in one script, so
 * Coordis candidates never do this). Thread-safe.
 */
public interface CounterElection {

    /**
     * The key, exactly as given.
     *
     * @return the key
     */
    String key();

    /**
     * The term: the expiry the leader refreshes, in whole seconds.
     *
     * @return the term
     */
    Duration term();

    /**
     * One round of the election (one round trip, at most the command timeout), after the local term check.
     *
     * @return whether this candidate leads after the round
     * @throws InterruptedException        when interrupted while waiting for the reply; the local state is kept
     *                                     as after a failed round. The round may still have run at Redis: if it
     *                                     made this candidate leader, the key expires by its term, as if the
     *                                     candidate had died.
     * @throws io.coordis.CoordisException when Redis cannot be reached, or the key is not an integer, naming
     *                                     the election; the local state is kept, so {@link #isLeader()} turns
     *                                     false when the term runs out without a successful round
     */
    boolean round() throws InterruptedException;

    /**
     * Whether this candidate leads: it won its last round and that round started less than a term ago.
     *
     * @return {@code true} while this candidate leads
     */
    boolean isLeader();

    /**
     * The value this candidate remembers (the classic {@code local_selector}); 0 when it does not lead.
     *
     * @return the remembered value, 0 when not leading
     */
    long remembered();

    /** Steps down locally: forgets the remembered value; the key expires by its term. */
    void stepDown();
}
