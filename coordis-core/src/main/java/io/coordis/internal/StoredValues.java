package io.coordis.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Reads values as Coordis stores them in Redis and scripts return them: numbers kept as strings, hashes as
 * flat field/value lists. Lenient, as other programs may write the same keys: what cannot be read is empty.
 */
public final class StoredValues {
    private StoredValues() {
    }

    /** An integer reply, or a string holding an integer; empty for anything else. */
    public static OptionalLong number(Object value) {
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

    /** A flat field/value list (as scripts return an {@code HGETALL}) as a map; empty for anything else. */
    public static Map<String, String> pairs(Object flat) {
        Map<String, String> map = new HashMap<>();
        if (flat instanceof List<?> l) {
            for (int i = 0; i + 1 < l.size(); i += 2) {
                map.put(String.valueOf(l.get(i)), String.valueOf(l.get(i + 1)));
            }
        }
        return map;
    }

    /** Milliseconds since the epoch as an instant. */
    public static Optional<Instant> instant(OptionalLong millis) {
        return millis.isPresent() ? Optional.of(Instant.ofEpochMilli(millis.getAsLong())) : Optional.empty();
    }

    /** Milliseconds as a duration. */
    public static Optional<Duration> duration(OptionalLong millis) {
        return millis.isPresent() ? Optional.of(Duration.ofMillis(millis.getAsLong())) : Optional.empty();
    }
}
