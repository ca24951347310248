package io.coordis.signal;

/**
 * Receives every signal on the channels of a {@link Subscription}. Called on a Coordis I/O thread, never
 * concurrently for one subscription: implementations must return quickly and must not block (hand
 * longer work to an executor); an exception thrown here is logged and does not stop the subscription.
 */
@FunctionalInterface
public interface SignalListener {
    /**
     * A signal arrived.
     *
     * @param signal the signal
     */
    void onSignal(Signal signal);

    /**
     * The subscription on {@code node} ({@code host:port}) was lost and is back: Redis confirmed it again,
     * and signals published meanwhile may not have been delivered (pub/sub does not keep messages). With
     * replicas, the other nodes may have delivered them. Default: nothing.
     *
     * @param node the node whose subscription was restored
     */
    default void onGap(String node) {
    }
}
