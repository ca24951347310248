package io.coordis.bench;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The one-line JSON objects a measuring child prints and the runner reads back: flat, with string and
 * number values only. Not a general JSON library; {@link #parse} accepts what {@link #write} produces.
 */
final class Json {
    private Json() {
    }

    /** {@code {"k":v,...}} in the map's order; numbers written as numbers, everything else as strings. */
    static String write(Map<String, ?> fields) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, ?> e : fields.entrySet()) {
            if (sb.length() > 1) {
                sb.append(',');
            }
            quote(sb, e.getKey());
            sb.append(':');
            Object v = e.getValue();
            if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
                sb.append("null");
            } else if (v instanceof Double || v instanceof Float) {
                sb.append(String.format(Locale.ROOT, "%.6g", ((Number) v).doubleValue()));
            } else if (v instanceof Number n) {
                sb.append(n);
            } else {
                quote(sb, String.valueOf(v));
            }
        }
        return sb.append('}').toString();
    }

    /**
     * Parses one flat object: numbers come back as {@link Double}, strings as {@link String}, {@code null}
     * as {@link Double#NaN}.
     *
     * @throws IllegalArgumentException naming the position when the text is not such an object
     */
    static Map<String, Object> parse(String text) {
        Map<String, Object> out = new LinkedHashMap<>();
        int[] at = {skip(text, 0)};
        expect(text, at, '{');
        if (peek(text, at) == '}') {
            at[0]++;
            return out;
        }
        while (true) {
            String key = string(text, at);
            expect(text, at, ':');
            at[0] = skip(text, at[0]);
            Object value;
            if (peek(text, at) == '"') {
                value = string(text, at);
            } else {
                int start = at[0];
                while (at[0] < text.length() && ",} ".indexOf(text.charAt(at[0])) < 0) {
                    at[0]++;
                }
                String raw = text.substring(start, at[0]);
                try {
                    value = raw.equals("null") ? Double.NaN : Double.parseDouble(raw);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("not a number at position " + start + ": '" + raw + "' in " + text);
                }
            }
            out.put(key, value);
            at[0] = skip(text, at[0]);
            char c = peek(text, at);
            at[0]++;
            if (c == '}') {
                return out;
            }
            if (c != ',') {
                throw new IllegalArgumentException("expected ',' or '}' at position " + (at[0] - 1) + " in " + text);
            }
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

    private static String string(String text, int[] at) {
        at[0] = skip(text, at[0]);
        expect(text, at, '"');
        StringBuilder sb = new StringBuilder();
        while (at[0] < text.length()) {
            char c = text.charAt(at[0]++);
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\' && at[0] < text.length()) {
                char e = text.charAt(at[0]++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(text.substring(at[0], at[0] + 4), 16));
                        at[0] += 4;
                    }
                    default -> sb.append(e);
                }
            } else {
                sb.append(c);
            }
        }
        throw new IllegalArgumentException("unterminated string in " + text);
    }

    private static void expect(String text, int[] at, char wanted) {
        at[0] = skip(text, at[0]);
        if (peek(text, at) != wanted) {
            throw new IllegalArgumentException("expected '" + wanted + "' at position " + at[0] + " in " + text);
        }
        at[0]++;
    }

    private static char peek(String text, int[] at) {
        if (at[0] >= text.length()) {
            throw new IllegalArgumentException("unexpected end of " + text);
        }
        return text.charAt(at[0]);
    }

    private static int skip(String text, int i) {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }
}
