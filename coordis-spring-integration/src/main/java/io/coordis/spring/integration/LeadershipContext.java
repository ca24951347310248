package io.coordis.spring.integration;

import io.coordis.election.Leadership;
import org.springframework.integration.leader.Context;

import java.util.Optional;

/**
 * The {@link Context} a {@link CoordisLeaderInitiator} hands its candidate and puts in its leader events, with
 * the Coordis term behind it: {@link #term()} is the fencing number to pass to whatever the leader writes, so that
 * a resource can refuse a leader whose term is over.
 */
public interface LeadershipContext extends Context {

    /**
     * The term this context leads (or led) in; 0 for the context of a candidate that has not led.
     *
     * @return the term, 0 before any
     */
    long term();

    /**
     * The Coordis leadership behind this context; empty for a candidate that has not led.
     *
     * @return the leadership, or empty before any
     */
    Optional<Leadership> leadership();

    /**
     * Whether this term still leads: not yielded, not stopped, not lost, and its local validity not run out (checked
     * on the monotonic clock, so a process that was paused past it learns at its first look).
     */
    @Override
    boolean isLeader();

    /**
     * Ends this term: the candidate's {@code onRevoked} and the revoked event run first (so that role-controlled
     * endpoints stop), then the leadership is resigned and the other candidates are woken to take over at once.
     * This candidate then stands aside for a third of the election's TTL before it campaigns again, so that another
     * candidate takes over rather than this one again. Returns at once; does nothing when the term is over.
     */
    @Override
    void yield();
}
