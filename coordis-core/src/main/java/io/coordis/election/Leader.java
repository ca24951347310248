package io.coordis.election;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Who leads an election, as read from Redis.
 *
 * @param id   the leader's candidate id (the value of the election's key)
 * @param term the leadership's term (fencing token); empty when the key was written by something other
 *             than Coordis
 * @param ttl  how long the leadership lives unless renewed; empty when the key has no expiry
 */
public record Leader(String id, OptionalLong term, Optional<Duration> ttl) {
    /**
     * Checks that no component is null.
     *
     * @param id   the leader's candidate id (the value of the election's key)
     * @param term the leadership's term (fencing token); empty when the key was written by something other
     *             than Coordis
     * @param ttl  how long the leadership lives unless renewed; empty when the key has no expiry
     * @throws NullPointerException when a component is null
     */
    public Leader {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(term, "term");
        Objects.requireNonNull(ttl, "ttl");
    }

    /**
     * {@code leader=<id> term=<term or ->}, the form {@code coordis leader} prints.
     *
     * @return the description
     */
    public String describe() {
        return "leader=" + id + " term=" + (term.isPresent() ? Long.toString(term.getAsLong()) : "-");
    }
}
