package io.coordis.shedlock;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import net.javacrumbs.shedlock.support.Utils;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * A foreign client that sends what ShedLock's Redis providers send (their jars are not used here): key
 * {@code job-lock:<env>:<name>} (after the test run's prefix, as a provider configured with that key prefix would
 * have it), value {@code ADDED:<ISO time>@<host>:<uuid>}; lock by {@code SET NX PX}; extend, and keep
 * {@code lockAtLeastFor} at unlock, by {@code SET ... XX PX} with the same value; unlock by a plain {@code DEL}.
 * With {@code safeUpdate} on, extend and keep by compare-and-pexpire and unlock by compare-and-delete instead.
 */
final class ShedLockRedisClient {
    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private static final String COMPARE_AND_PEXPIRE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

    private final RedisServer server;
    private final String environment;
    private final boolean safeUpdate;

    ShedLockRedisClient(RedisServer server, String environment, boolean safeUpdate) {
        this.server = server;
        this.environment = environment;
        this.safeUpdate = safeUpdate;
    }

    static String key(String environment, String name) {
        return Prefixed.key("job-lock:" + environment + ":" + name);
    }

    /** {@code SET key value NX PX lockAtMostFor}: the lock, or empty when it is held. */
    Optional<Held> lock(String name, Duration lockAtMostFor) {
        String key = key(environment, name);
        String value = "ADDED:" + Utils.toIsoString(Instant.now()) + "@" + Utils.getHostname() + ":" + UUID.randomUUID();
        Object reply = server.command("SET", key, value, "NX", "PX", Long.toString(lockAtMostFor.toMillis()));
        return "OK".equals(reply) ? Optional.of(new Held(key, value)) : Optional.empty();
    }

    /** One held lock of this client. */
    final class Held {
        final String key;
        final String value;

        Held(String key, String value) {
            this.key = key;
            this.value = value;
        }

        /** Sets the key's expiry to {@code ttl}; true when the provider would report the lock extended. */
        boolean extend(Duration ttl) {
            String ms = Long.toString(ttl.toMillis());
            if (safeUpdate) {
                return Long.valueOf(1).equals(server.command("EVAL", COMPARE_AND_PEXPIRE, "1", key, value, ms));
            }
            return "OK".equals(server.command("SET", key, value, "XX", "PX", ms));
        }

        /** Unlocks, keeping the key for {@code keep} more when it is positive. */
        void unlock(Duration keep) {
            if (keep.toMillis() > 0) {
                extend(keep);
            } else if (safeUpdate) {
                server.command("EVAL", COMPARE_AND_DELETE, "1", key, value);
            } else {
                server.command("DEL", key);
            }
        }
    }
}
