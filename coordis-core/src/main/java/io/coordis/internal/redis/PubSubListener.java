package io.coordis.internal.redis;

/**
 * Receives what a node's pub/sub connection delivers for the channels or patterns it was registered on.
 * Called on a Lettuce I/O thread: implementations must be quick, must not block and must not throw.
 */
public interface PubSubListener {
    /** A message published on {@code channel} (for a pattern registration, the channel that matched). */
    void message(String channel, String message);

    /**
     * The connection was lost and has been re-established, and Redis confirmed the subscription again:
     * messages published while it was down were not delivered. Called once per registration and outage.
     */
    default void gap() {
    }

    /**
     * The client was closed: nothing more will be delivered to this registration. Called once, on the thread
     * that closes the client, so that a caller waiting for a message can stop waiting.
     */
    default void closed() {
    }
}
