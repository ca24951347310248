package io.coordis.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Writes JSON for {@code -o json}: a value tree of {@link Map}s (objects, in their iteration order),
 * {@link Collection}s (arrays), strings, numbers, booleans and {@code null}. {@link Optional} and
 * {@link OptionalLong} become their value or {@code null}; a {@link Duration} becomes milliseconds, an
 * {@link Instant} milliseconds since the epoch. Always one line.
 */
final class JsonWriter {
    private JsonWriter() {
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    /** {@code s} as a JSON string literal, quotes included. */
    static String string(String s) {
        StringBuilder sb = new StringBuilder();
        quote(sb, s);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value) {
        if (value instanceof Optional<?> o) {
            write(sb, o.orElse(null));
        } else if (value instanceof OptionalLong o) {
            write(sb, o.isPresent() ? (Object) o.getAsLong() : null);
        } else if (value == null) {
            sb.append("null");
        } else if (value instanceof Duration d) {
            sb.append(d.toMillis());
        } else if (value instanceof Instant i) {
            sb.append(i.toEpochMilli());
        } else if (value instanceof Number || value instanceof Boolean) {
            sb.append(value);
        } else if (value instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                quote(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (value instanceof Collection<?> c) {
            sb.append('[');
            boolean first = true;
            for (Object item : c) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                write(sb, item);
            }
            sb.append(']');
        } else {
            quote(sb, String.valueOf(value));
        }
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
