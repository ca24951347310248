package io.coordis.election;

import java.util.Objects;
import java.util.Optional;

/**
 * A change an observer saw: a new leader or term, or the election left without a leader.
 *
 * @param leader        the leader now; empty when nobody leads
 * @param termRegressed whether the new leader's term is not above a term seen before in this election
 *                      (Redis lost data: a restart without persistence, or a failover to a replica that
 *                      had not caught up); fenced resources will refuse such a leader's writes
 */
public record LeaderEvent(Optional<Leader> leader, boolean termRegressed) {
    /**
     * Checks that the leader is given (empty when nobody leads).
     *
     * @param leader        the leader now; empty when nobody leads
     * @param termRegressed whether the new leader's term is not above a term seen before in this election
     *                      (Redis lost data: a restart without persistence, or a failover to a replica that
     *                      had not caught up); fenced resources will refuse such a leader's writes
     * @throws NullPointerException when {@code leader} is null
     */
    public LeaderEvent {
        Objects.requireNonNull(leader, "leader");
    }

    /**
     * {@code leader=<id> term=<term>}, {@code leader=- term=-} when nobody leads; plus a regression mark.
     *
     * @return the description
     */
    public String describe() {
        return leader.map(Leader::describe).orElse("leader=- term=-") + (termRegressed ? " term-regressed" : "");
    }
}
