package io.coordis.inspect;

import java.time.Duration;
import java.util.Optional;

/**
 * A signal channel as read from Redis at one moment. Immutable.
 *
 * @param channel     the channel name (for a latched event, its name)
 * @param subscribers clients subscribed to exactly this channel on the node read (waiters; pattern
 *                    subscribers are not counted, Redis does not attribute them to channels)
 * @param latched     the data of the last latched event ({@code {name}:event}) while it is kept; empty
 *                    when none
 * @param latchedTtl  how much longer that event stays latched; empty when none or never expiring
 */
public record SignalState(String channel, long subscribers, Optional<String> latched, Optional<Duration> latchedTtl)
        implements ObjectState {
    /**
     * The channel's name.
     *
     * @return {@link #channel()}
     */
    @Override
    public String name() {
        return channel;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.SIGNAL;
    }
}
