package io.coordis.internal.lock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** What a {@link HeldLease} needs from the lock that issued it. Implementations are thread-safe. */
interface LeaseOps {

    /** Extends the lock to {@code ttl} if {@code token} still holds it; completes with {@code false} if not. */
    CompletableFuture<Boolean> extend(String token, Duration ttl);

    /** Releases the lock if {@code token} still holds it; blocking; {@code true} if this call deleted it. */
    boolean release(String token);

    /**
     * Leaves the lock to expire {@code keepFor} from now if {@code token} still holds it; blocking; {@code true} if
     * it did. Hands nothing to a local waiter: the lock stays taken at Redis.
     */
    boolean releaseAfter(String token, Duration keepFor);
}
