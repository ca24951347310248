package io.coordis.inspect;

import io.coordis.internal.Keys;
import io.coordis.internal.redis.LuaScript;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code string-state.lua} read about one string key on one node, and what kind of object it is.
 *
 * <p>How a string key is classified, in this order: holder details whose token equals the value make a
 * Coordis lock; leadership details whose id equals the value make a Coordis election; a value that is a
 * plausible expiry time (Unix seconds or milliseconds within a year of now) makes a legacy lock; a term
 * counter beside it makes an election led by another client; a fencing counter beside it makes a lock held
 * by another client; otherwise a key with a TTL and a short value (at most {@value #FOREIGN_MAX_BYTES}
 * bytes: lock tokens are short random strings) is taken for another client's lock ({@code SET k v NX PX}).
 * That last rule is a guess: a short cached value with a TTL looks the same, which is why coordination
 * belongs on a Redis of its own. Keys without a TTL and not matching an earlier rule are not shown.
 */
record StringRead(String type, String value, long strlen, long pttl, OptionalLong fence, Map<String, String> holder,
                  Map<String, String> leadership, OptionalLong term, List<String> audit, long nowMillis) {
    static final LuaScript SCRIPT = LuaScript.load(StringRead.class, "string-state.lua");
    static final int FOREIGN_MAX_BYTES = 128;
    static final int VALUE_BYTES = 256;
    private static final long YEAR_MS = Duration.ofDays(366).toMillis();

    enum Kind { NONE, LOCK, LEGACY_LOCK, ELECTION, OTHER }

    static List<String> keys(String name) {
        return List.of(name, Keys.derived(name, "fence"), Keys.derived(name, "holder"), Keys.derived(name, "leader"),
                Keys.derived(name, "term"), Keys.derived(name, "audit"));
    }

    static List<String> args(int auditEntries) {
        return List.of(Integer.toString(auditEntries), Integer.toString(VALUE_BYTES));
    }

    /** @return the read, or a read of only the type when the key holds something other than a string */
    static StringRead parse(Object reply) {
        List<?> r = (List<?>) reply;
        String type = (String) r.get(0);
        if (r.size() == 1) {
            return new StringRead(type, null, 0, -2, OptionalLong.empty(), Map.of(), Map.of(), OptionalLong.empty(),
                    List.of(), 0);
        }
        return new StringRead(type, r.get(1) instanceof String s ? s : null, (Long) r.get(2), (Long) r.get(3),
                number(r.get(4)), pairs(r.get(5)), pairs(r.get(6)), number(r.get(7)),
                ((List<?>) r.get(8)).stream().map(String::valueOf).toList(), (Long) r.get(9));
    }

    boolean isString() {
        return type.equals("string") || type.equals("none");
    }

    Kind kind() {
        if (!isString()) {
            return Kind.OTHER;
        }
        if (value == null) {
            return Kind.NONE;
        }
        if (!holder.isEmpty()) {
            return Kind.LOCK;
        }
        if (!leadership.isEmpty()) {
            return Kind.ELECTION;
        }
        if (legacyExpiry().isPresent()) {
            return Kind.LEGACY_LOCK;
        }
        if (term.isPresent()) {
            return Kind.ELECTION;
        }
        if (fence.isPresent()) {
            return Kind.LOCK;
        }
        return pttl >= 0 && strlen <= FOREIGN_MAX_BYTES ? Kind.LOCK : Kind.OTHER;
    }

    /** The expiry a legacy value stores, Unix ms, when the value is a plausible one (within a year of now). */
    OptionalLong legacyExpiry() {
        if (value == null || strlen > 32 || !value.matches("\\d+(\\.\\d*)?")) {
            return OptionalLong.empty();
        }
        double n = Double.parseDouble(value);
        long ms = n < 1e11 ? ((long) Math.floor(n) + 1) * 1000 - 1 : (long) n;
        return Math.abs(ms - nowMillis) <= YEAR_MS ? OptionalLong.of(ms) : OptionalLong.empty();
    }

    /** Time left: for a legacy value until its stored expiry, otherwise the key's PTTL; empty when none. */
    Optional<Duration> ttl() {
        OptionalLong legacy = legacyExpiry();
        if (legacy.isPresent()) {
            return Optional.of(Duration.ofMillis(Math.max(0, legacy.getAsLong() - nowMillis)));
        }
        return pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty();
    }

    /** Whether a legacy value's stored expiry has passed (the lock is free to take over). */
    boolean legacyExpired() {
        OptionalLong legacy = legacyExpiry();
        return legacy.isPresent() && legacy.getAsLong() < nowMillis;
    }

    static OptionalLong number(Object value) {
        if (value instanceof Long l) {
            return OptionalLong.of(l);
        }
        if (value instanceof String s) {
            try {
                return OptionalLong.of(Long.parseLong(s.trim()));
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }
        return OptionalLong.empty();
    }

    static OptionalLong number(Map<String, String> fields, String name) {
        return fields.containsKey(name) ? number(fields.get(name)) : OptionalLong.empty();
    }

    static Map<String, String> pairs(Object flat) {
        Map<String, String> map = new HashMap<>();
        if (flat instanceof List<?> l) {
            for (int i = 0; i + 1 < l.size(); i += 2) {
                map.put(String.valueOf(l.get(i)), String.valueOf(l.get(i + 1)));
            }
        }
        return map;
    }
}
