package io.coordis.internal.inspect;

import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What {@code value-state.lua} read of one string key on one node: its type, its value (the first
 * {@value #VALUE_BYTES} bytes), its TTL and the server's clock, in one atomic step. The primitive's layout parses
 * the value; a value longer than that is none a Coordis counter or time would be.
 *
 * @param type      the key's type: {@code string}, {@code none} or the type that stopped the read
 * @param value     the value's first bytes; null when there is no key, or another type
 * @param strlen    the value's full length in bytes
 * @param pttl      as {@code PTTL} answers it: -2 no key, -1 no expiry
 * @param nowMicros the server's clock, microseconds since the epoch
 */
record ValueRead(String type, String value, long strlen, long pttl, long nowMicros) {
    static final LuaScript SCRIPT = LuaScript.load(ValueRead.class, "value-state.lua");
    static final int VALUE_BYTES = 64;

    /** Reads {@code key} on {@code node}. */
    static ValueRead read(RedisNode node, String key) throws InterruptedException {
        List<?> r = (List<?>) Keyspace.await(node, node.eval(SCRIPT, List.of(key), List.of()));
        String type = (String) r.get(0);
        if (r.size() == 1) {
            return new ValueRead(type, null, 0, -2, 0);
        }
        long now = Long.parseLong((String) r.get(4)) * 1_000_000 + Long.parseLong((String) r.get(5));
        return new ValueRead(type, r.get(1) instanceof String s ? s : null, (Long) r.get(2), (Long) r.get(3), now);
    }

    /** Whether the key holds a string (and not another type). */
    boolean isString() {
        return type.equals("string");
    }

    /** The whole value, when it fits the bytes read; empty for no key, another type or a longer value. */
    Optional<String> whole() {
        return value != null && strlen <= VALUE_BYTES ? Optional.of(value) : Optional.empty();
    }

    /** Time left before the key expires; empty when it never does or there is no key. */
    Optional<Duration> ttl() {
        return pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty();
    }
}
