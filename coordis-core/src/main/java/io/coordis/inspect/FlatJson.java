package io.coordis.inspect;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads one flat JSON object ({@code {"k":"text","n":12,"b":true,"z":null}}): strings come back as
 * {@link String}, integers as {@link Long}, other numbers as {@link Double}, booleans as {@link Boolean}.
 * Nested values and malformed text give an empty map: audit entries are written by other programs too, and
 * an unreadable one is shown raw rather than failing the whole read.
 */
final class FlatJson {
    private final String s;
    private int i;

    private FlatJson(String s) {
        this.s = s;
    }

    static Map<String, Object> parse(String text) {
        try {
            return new FlatJson(text == null ? "" : text).object();
        } catch (RuntimeException e) {
            return Map.of();
        }
    }

    private Map<String, Object> object() {
        Map<String, Object> fields = new LinkedHashMap<>();
        expect('{');
        if (peek() == '}') {
            i++;
            return end(fields);
        }
        while (true) {
            String name = string();
            expect(':');
            fields.put(name, value());
            char c = next();
            if (c == '}') {
                return end(fields);
            }
            if (c != ',') {
                throw new IllegalArgumentException("expected , or } at " + i);
            }
        }
    }

    private Map<String, Object> end(Map<String, Object> fields) {
        skipBlanks();
        if (i != s.length()) {
            throw new IllegalArgumentException("trailing text at " + i);
        }
        return fields;
    }

    private Object value() {
        char c = peek();
        if (c == '"') {
            return string();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (s.startsWith(word, i)) {
                i += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        String number = s.substring(start, i);
        if (number.isEmpty()) {
            throw new IllegalArgumentException("unexpected " + c + " at " + start);
        }
        return number.matches("-?\\d+") ? (Object) Long.parseLong(number) : (Object) Double.parseDouble(number);
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> sb.append(e);
            }
        }
    }

    private void expect(char c) {
        if (next() != c) {
            throw new IllegalArgumentException("expected " + c + " at " + (i - 1));
        }
    }

    private char next() {
        skipBlanks();
        return s.charAt(i++);
    }

    private char peek() {
        skipBlanks();
        return s.charAt(i);
    }

    private void skipBlanks() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }
}
