package io.coordis.election;

import java.time.Duration;
import java.util.Optional;

/**
 * A candidate that stays in its election: it campaigns, leads until its leadership ends, campaigns again, and so on
 * until it is closed, when it resigns. Made by {@link LeaderElection#candidacy}, which starts it.
 *
 * <pre>{@code
 * Candidacy candidacy = coordis.election("reports:scheduler").candidacy(new CandidacyListener() {
 *     public void granted(Leadership leadership) { scheduler.start(leadership.term()); }
 *     public void revoked(Leadership leadership) { scheduler.stop(); }
 * });
 * // ... until the application stops:
 * candidacy.close();                                    // revoked, then resigned: another candidate leads at once
 * }</pre>
 *
 * <p>It has no thread of its own: each campaign is a {@link LeaderElection#campaignAsync} that rides out Redis
 * outages, and a leadership's end is its {@link Leadership#lost()} notice. The {@link CandidacyListener} is called on
 * the client's callback executor ({@link io.coordis.Coordis.Builder#callbackExecutor}), one call at a time and in
 * order: {@code granted} and {@code revoked} alternate, starting with {@code granted}. A campaign that fails for a
 * reason waiting does not mend (credentials, rights) is told to {@code failed} and made again a second later.
 *
 * <p>End a leadership through {@link #resign} or {@link #close}: a leadership resigned through the election or the
 * leadership itself is not lost, so the candidacy would not campaign again. Close the candidacy before its election.
 * Thread-safe.
 */
public interface Candidacy extends AutoCloseable {

    /**
     * The election this candidacy campaigns in.
     *
     * @return the election
     */
    LeaderElection election();

    /**
     * The leadership granted and not yet revoked, while it is valid. Does not block.
     *
     * @return the leadership, or empty while this candidacy does not lead
     */
    Optional<Leadership> leadership();

    /**
     * Whether this candidacy leads now. Does not block.
     *
     * @return {@code true} while a granted leadership is valid
     */
    default boolean isLeader() {
        return leadership().isPresent();
    }

    /**
     * Ends the current leadership, if there is one, and campaigns again after {@code standAside}, so that another
     * candidate can take over: {@code revoked} is called first, then the leadership is resigned and the waiting
     * candidates are woken. Returns at once; does nothing when this candidacy does not lead or was closed.
     *
     * @param standAside how long to wait before campaigning again; {@link Duration#ZERO} campaigns at once
     * @throws IllegalArgumentException for a negative {@code standAside}
     */
    void resign(Duration standAside);

    /**
     * Stops campaigning; a leadership is revoked ({@code revoked} returns) and then resigned, so another candidate
     * takes over at once. Blocks until that is done, unless called from the listener (it then happens after the
     * listener's call returns) or interrupted (the interrupt is kept). A resignation Redis could not be told of is
     * logged; the leadership then ends by its TTL. Idempotent.
     */
    @Override
    void close();
}
