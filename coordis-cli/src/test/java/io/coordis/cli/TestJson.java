package io.coordis.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for tests: objects become {@code Map<String, Object>}, arrays {@code List<Object>},
 * integers {@code Long}, other numbers {@code Double}. Anything malformed fails the test.
 */
final class TestJson {
    private final String s;
    private int i;

    private TestJson(String s) {
        this.s = s;
    }

    static Map<String, Object> object(String text) {
        TestJson p = new TestJson(text.strip());
        Object v = p.value();
        if (p.i != p.s.length()) {
            throw new AssertionError("trailing text after JSON at " + p.i + ": " + text);
        }
        if (!(v instanceof Map)) {
            throw new AssertionError("not a JSON object: " + text);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        return m;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    private Object value() {
        blanks();
        char c = s.charAt(i);
        if (c == '{') {
            i++;
            Map<String, Object> m = new LinkedHashMap<>();
            blanks();
            if (s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                blanks();
                String k = string();
                blanks();
                expect(':');
                if (m.put(k, value()) != null) {
                    throw new AssertionError("duplicate key " + k);
                }
                blanks();
                if (s.charAt(i) == ',') {
                    i++;
                } else {
                    expect('}');
                    return m;
                }
            }
        }
        if (c == '[') {
            i++;
            List<Object> l = new ArrayList<>();
            blanks();
            if (s.charAt(i) == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                blanks();
                if (s.charAt(i) == ',') {
                    i++;
                } else {
                    expect(']');
                    return l;
                }
            }
        }
        if (c == '"') {
            return string();
        }
        for (String w : new String[] {"true", "false", "null"}) {
            if (s.startsWith(w, i)) {
                i += w.length();
                return w.equals("null") ? null : Boolean.valueOf(w);
            }
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        String n = s.substring(start, i);
        if (n.isEmpty()) {
            throw new AssertionError("unexpected '" + c + "' at " + start + " in " + s);
        }
        return n.matches("-?\\d+") ? (Object) Long.parseLong(n) : (Object) Double.parseDouble(n);
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                throw new AssertionError("raw control character in a JSON string at " + (i - 1));
            }
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> sb.append(e);
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> throw new AssertionError("bad escape \\" + e);
                }
            } else {
                sb.append(c);
            }
        }
    }

    private void expect(char c) {
        if (s.charAt(i) != c) {
            throw new AssertionError("expected '" + c + "' at " + i + " in " + s);
        }
        i++;
    }

    private void blanks() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }
}
