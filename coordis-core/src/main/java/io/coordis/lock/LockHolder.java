package io.coordis.lock;

import io.coordis.internal.Durations;
import io.coordis.internal.lock.LockLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Who holds a lock, as read from Redis at one moment.
 *
 * @param key          the lock key
 * @param token        the value at the key (for a lock taken by another client library, its own value)
 * @param holderId     the holder's id ({@code user@host:pid} by default), empty for a foreign holder
 * @param fencingToken the fencing number of the current acquisition, empty for a foreign holder
 * @param ttl          time left before the lock ends: the key's own expiry, or for the legacy lock the time
 *                     until the expiry stored in its value; empty when it never expires
 * @param since        when the holder acquired it (its own wall clock), empty for a foreign holder
 */
public record LockHolder(String key, String token, Optional<String> holderId, OptionalLong fencingToken,
                         Optional<Duration> ttl, Optional<Instant> since) {

    /**
     * Whether the lock was taken by Coordis (as opposed to another client on the same key).
     *
     * @return {@code true} when a Coordis client holds it
     */
    public boolean isCoordis() {
        return holderId.isPresent();
    }

    /**
     * One line for people: {@code alice@web1:42 (token 7, ttl 4.2s)}; {@code readers (ttl 4.2s)} for read holds.
     *
     * @return the description
     */
    public String describe() {
        StringBuilder sb = new StringBuilder(holderId.orElse(LockLayout.READERS.equals(token) ? "readers"
                : "a foreign client"));
        sb.append(" (");
        fencingToken.ifPresent(f -> sb.append("token ").append(f).append(", "));
        sb.append(ttl.map(t -> "ttl " + Durations.format(t)).orElse("no expiry"));
        return sb.append(')').toString();
    }
}
