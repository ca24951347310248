package io.coordis.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A lease election as read from Redis at one moment. Immutable.
 *
 * @param name        the election's name (its Redis key)
 * @param leader      the leader's id; empty when nobody leads
 * @param term        the leader's term (its fencing number); empty when nobody leads or the key was not
 *                    written by Coordis
 * @param since       when the leadership began (the leader's wall clock); empty when unknown
 * @param leaderFor   the server's clock minus {@code since}; empty when unknown
 * @param ttl         time left before the leadership lapses unless renewed; empty when nobody leads or the
 *                    key never expires
 * @param termCounter the highest term handed out so far; the next leader gets a higher one
 * @param observers   Coordis clients listening for changes of leadership (candidates and observers)
 */
public record ElectionState(String name, Optional<String> leader, OptionalLong term, Optional<Instant> since,
                            Optional<Duration> leaderFor, Optional<Duration> ttl, OptionalLong termCounter,
                            long observers) implements ObjectState {

    @Override
    public ObjectKind kind() {
        return ObjectKind.ELECTION;
    }
}
