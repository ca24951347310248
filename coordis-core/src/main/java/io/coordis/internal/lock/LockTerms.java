package io.coordis.internal.lock;

import io.coordis.Replication;
import io.coordis.internal.Durations;
import io.coordis.lock.LockOptions;

import java.time.Duration;

/** What the locks derive from their {@link LockOptions}: the replicas to wait for, the bounds of a TTL. Stateless. */
final class LockTerms {
    private LockTerms() {
    }

    /** The replicas a write waits for: the options' own, or none. */
    static Replication replicationOrNone(LockOptions options) {
        return options.replication().orElse(Replication.none());
    }

    /** {@code ttl} when within {@link LockOptions#MIN_TTL} and {@link LockOptions#MAX_TTL}; for a lease's extend. */
    static Duration checkTtl(Duration ttl) {
        return Durations.between(ttl, LockOptions.MIN_TTL, LockOptions.MAX_TTL, "lock ttl");
    }
}
