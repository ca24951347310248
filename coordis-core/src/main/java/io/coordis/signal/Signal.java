package io.coordis.signal;

import java.util.Objects;

/**
 * One message received on a channel: the channel it was published on (for a pattern waiter, the channel
 * that matched) and its data, exactly as published.
 */
public record Signal(String channel, String data) {
    /**
     * Checks that both parts are given.
     *
     * @param channel the channel it was published on (for a pattern waiter, the channel that matched)
     * @param data    its data, exactly as published
     * @throws NullPointerException when a part is null
     */
    public Signal {
        Objects.requireNonNull(channel, "channel must not be null");
        Objects.requireNonNull(data, "data must not be null");
    }
}
