package io.coordis.election;

import io.coordis.CoordisException;

/**
 * Told when a {@link Candidacy} is granted a leadership and when that leadership ends. Called on the client's callback
 * executor ({@link io.coordis.Coordis.Builder#callbackExecutor}), one call at a time and in order, never on a thread
 * the client needs: a call that blocks delays this candidacy's later calls, not its renewals. Exceptions the calls
 * throw are logged and otherwise ignored. All methods default to doing nothing.
 */
public interface CandidacyListener {

    /**
     * The candidacy leads with {@code leadership}; its {@link Leadership#term()} fences what the leader writes.
     *
     * @param leadership the leadership granted
     */
    default void granted(Leadership leadership) {
    }

    /**
     * The leadership last {@link #granted} ended: lost (taken over, expired, or its local deadline passed), resigned
     * through the candidacy, or the candidacy was closed. From this call on, the candidacy does not lead with it.
     *
     * @param leadership the leadership that ended, the one last granted
     */
    default void revoked(Leadership leadership) {
    }

    /**
     * A campaign failed for a reason that waiting does not mend (refused credentials or rights, a key of another
     * type); the candidacy campaigns again a second later. Outages are ridden out by the campaign and not told here.
     *
     * @param failure why the campaign failed
     */
    default void failed(CoordisException failure) {
    }
}
