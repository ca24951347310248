package io.coordis.inspect;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A rate limiter as read from Redis in one atomic step: what its one key holds, the theoretical arrival time (TAT)
 * of its GCRA, compared with Redis's clock. The limit is not stored (each client applies its own to the stored
 * time), so neither the permits left nor the rate can be read, only how far ahead the limiter runs: after
 * {@code busyFor} it is back at its full burst, whatever its limit. A limiter that has been idle that long keeps
 * no key and is not shown at all. Immutable.
 *
 * @param name               the limiter's name, its key prefix included (its key is {@code {name}:rate}); a
 *                           member of a family made with {@code forKey} has a name of its own, such as
 *                           {@code api:search:alice}
 * @param theoreticalArrival the stored TAT, by Redis's clock, to the microsecond
 * @param busyFor            the TAT minus the server's clock: how long until the limiter is idle again (back at its
 *                           full burst); {@link Duration#ZERO} when it is idle already
 * @param ttl                time left before the key expires; empty when it never does (a key Coordis writes
 *                           expires at its TAT)
 */
public record RateLimiterState(String name, Instant theoreticalArrival, Duration busyFor, Optional<Duration> ttl)
        implements ObjectState {

    @Override
    public ObjectKind kind() {
        return ObjectKind.RATE_LIMITER;
    }

    /**
     * Whether the limiter is back at its full burst: its TAT is not later than the server's clock.
     *
     * @return {@code busyFor} is zero
     */
    public boolean idle() {
        return busyFor.isZero();
    }
}
