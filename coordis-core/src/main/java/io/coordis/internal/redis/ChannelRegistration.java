package io.coordis.internal.redis;

import java.util.concurrent.CompletableFuture;

/** A listener registered on a channel; {@link #close()} removes it (and unsubscribes when it was the last). */
public interface ChannelRegistration extends AutoCloseable {
    @Override
    void close();

    /**
     * Completes when Redis has confirmed every channel of this registration, or fails naming the node.
     * Blocking registrations return only after that, so theirs is already complete.
     */
    default CompletableFuture<Void> ready() {
        return CompletableFuture.completedFuture(null);
    }
}
