package io.coordis.internal.redis;

/** A listener registered on a channel; {@link #close()} removes it (and unsubscribes when it was the last). */
public interface Subscription extends AutoCloseable {
    @Override
    void close();
}
