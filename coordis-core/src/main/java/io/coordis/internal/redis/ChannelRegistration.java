package io.coordis.internal.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

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

    /** A registration whose {@link #close()} runs {@code remove} once, however often it is called. */
    static ChannelRegistration of(CompletableFuture<Void> ready, Runnable remove) {
        AtomicBoolean open = new AtomicBoolean(true);
        return new ChannelRegistration() {
            @Override
            public void close() {
                if (open.compareAndSet(true, false)) {
                    remove.run();
                }
            }

            @Override
            public CompletableFuture<Void> ready() {
                return ready;
            }
        };
    }
}
