package io.coordis.inspect;

import java.time.Duration;
import java.util.Optional;

/**
 * A count-down latch as read from Redis in one atomic step: its stored count and how long its key is kept, and the
 * clients waiting for its opening. The initial count is not stored (every handle brings its own), so how far down
 * it has come cannot be read. Immutable.
 *
 * @param name    the latch's name, its key prefix included (its key and channel are {@code {name}:latch})
 * @param count   the stored count; 0 once open
 * @param ttl     time left before the key expires (each change sets it to the latch's {@code expireAfter}); empty
 *                when it never does
 * @param waiters Redis connections subscribed to the latch's channel on the node read: each Coordis client
 *                waiting for the opening counts once, however many of its threads wait
 */
public record LatchState(String name, long count, Optional<Duration> ttl, long waiters) implements ObjectState {

    @Override
    public ObjectKind kind() {
        return ObjectKind.LATCH;
    }

    /**
     * Whether the latch is open: its count has reached zero.
     *
     * @return {@code count} is 0 or less
     */
    public boolean open() {
        return count <= 0;
    }
}
