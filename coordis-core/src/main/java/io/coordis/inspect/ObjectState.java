package io.coordis.inspect;

/**
 * What an {@link Inspector} read of one object at one moment: one record per {@link ObjectKind}. Its document
 * (what {@code coordis ls -o json}, the dashboard and the actuator show) comes from {@link StateDocuments}.
 * Implementations are immutable records.
 */
public sealed interface ObjectState permits LockState, ElectionState, QueueState, SemaphoreState, SignalState,
        RateLimiterState, LatchState {
    /**
     * The object's Redis name: its key, or for a signal its channel.
     *
     * @return the name
     */
    String name();

    /**
     * What kind of object this is.
     *
     * @return the kind
     */
    ObjectKind kind();
}
