package io.coordis.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What a Redis server holds for one name, read with plain commands: every key whose name contains it (the key
 * itself and the keys derived from it, {@code {name}:fence} and the like), each with its type, its value and its
 * absolute expiry ({@code PEXPIRETIME}, so a refreshed TTL shows as a change where a {@code PTTL} would only
 * shrink; on Redis 6.2, which lacks it, Redis's clock plus {@code PTTL} read within one millisecond). Two snapshots
 * are equal when nothing of the name changed in between.
 *
 * @param keys key name → what it holds, ordered by key name
 */
public record Keyspace(Map<String, Entry> keys) {

    /**
     * One key: its {@code TYPE}, its value as Redis answers a full read of it (a string; a hash's fields and
     * values; a sorted set's members and scores; a list's or a set's members), and its expiry in Unix ms ({@code -1}:
     * none).
     */
    public record Entry(String type, Object value, long expiresAt) {
        /**
         * Whether the key has an expiry.
         *
         * @return {@code true} when it expires
         */
        public boolean expires() {
            return expiresAt >= 0;
        }
    }

    /**
     * Reads every key of {@code server} whose name contains {@code name} (glob characters in it are escaped).
     *
     * @param server the server to read
     * @param name   the text the key names contain
     * @return the keys read
     */
    public static Keyspace of(RedisServer server, String name) {
        Map<String, Entry> keys = new TreeMap<>();
        try (RespClient c = server.client()) {
            for (Object k : (List<?>) c.command("KEYS", "*" + escape(name) + "*")) {
                String key = (String) k;
                String type = (String) c.command("TYPE", key);
                if (type.equals("none")) {
                    continue; // expired since KEYS answered
                }
                keys.put(key, new Entry(type, value(c, key, type), expiresAt(c, key)));
            }
        }
        return new Keyspace(keys);
    }

    /**
     * Before Redis 7: the clock and the key's PTTL read in one script, again until both fall in one millisecond,
     * so their sum is the expiry Redis keeps (in whole milliseconds).
     */
    private static final String EXPIRES_AT = "while true do "
            + "local a = redis.call('TIME') local p = redis.call('PTTL', KEYS[1]) local b = redis.call('TIME') "
            + "local ms = tonumber(a[1]) * 1000 + math.floor(tonumber(a[2]) / 1000) "
            + "if p < 0 then return p end "
            + "if ms == tonumber(b[1]) * 1000 + math.floor(tonumber(b[2]) / 1000) then return ms + p end end";

    /**
     * The expiry of {@code key} on {@code server} in Unix ms; {@code -1} without one, {@code -2} when it is gone.
     *
     * @param server the server to ask
     * @param key    the key
     * @return the expiry, or -1 or -2
     */
    public static long expiresAt(RedisServer server, String key) {
        try (RespClient c = server.client()) {
            return expiresAt(c, key);
        }
    }

    /** The key's expiry in Unix ms; {@code -1} without one. */
    private static long expiresAt(RespClient c, String key) {
        try {
            return (Long) c.command("PEXPIRETIME", key);
        } catch (RespException e) {
            if (!String.valueOf(e.getMessage()).contains("unknown command")) {
                throw e;
            }
            return (Long) c.command("EVAL", EXPIRES_AT, "1", key);
        }
    }

    /**
     * The keys that never expire.
     *
     * @return the names of the keys without expiry
     */
    public Set<String> lasting() {
        return keys.entrySet().stream().filter(e -> !e.getValue().expires()).map(Map.Entry::getKey)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Object value(RespClient c, String key, String type) {
        return switch (type) {
            case "string" -> c.command("GET", key);
            case "hash" -> sortedPairs((List<?>) c.command("HGETALL", key));
            case "zset" -> c.command("ZRANGE", key, "0", "-1", "WITHSCORES");
            case "list" -> c.command("LRANGE", key, "0", "-1");
            case "set" -> new TreeSet<>(((List<?>) c.command("SMEMBERS", key)).stream()
                    .map(String::valueOf).toList());
            default -> type; // a stream or a module type: its type only
        };
    }

    /** A hash's field/value list as a map in field order (HGETALL answers in no fixed order). */
    private static Map<String, String> sortedPairs(List<?> flat) {
        Map<String, String> pairs = new TreeMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            pairs.put(String.valueOf(flat.get(i)), String.valueOf(flat.get(i + 1)));
        }
        return pairs;
    }

    private static String escape(String name) {
        StringBuilder sb = new StringBuilder();
        for (char ch : name.toCharArray()) {
            if ("*?[]\\".indexOf(ch) >= 0) {
                sb.append('\\');
            }
            sb.append(ch);
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        List<String> lines = new ArrayList<>();
        keys.forEach((k, e) -> lines.add(k + " " + e.type() + " " + e.value() + " expiresAt=" + e.expiresAt()));
        return String.join("\n", lines);
    }
}
