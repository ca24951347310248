package io.coordis.testkit.history;

import java.util.HashMap;
import java.util.Map;

/** The flat JSON form of an {@link Op}: string and integer fields only. */
final class Json {
    private Json() {
    }

    static String write(Op op) {
        return "{\"process\":" + quote(op.process()) + ",\"thread\":" + quote(op.thread())
                + ",\"type\":" + quote(op.type()) + ",\"f\":" + quote(op.f()) + ",\"key\":" + quote(op.key())
                + ",\"value\":" + quote(op.value()) + ",\"token\":" + op.token() + ",\"time\":" + op.micros() + "}";
    }

    /** Parses a line written by {@link #write}; throws IllegalArgumentException for anything else. */
    static Op read(String line) {
        Map<String, String> fields = new HashMap<>();
        int i = skip(line, 0);
        i = expect(line, i, '{');
        while (true) {
            i = skip(line, i);
            if (line.charAt(i) == '}') {
                break;
            }
            StringBuilder name = new StringBuilder();
            i = string(line, i, name);
            i = expect(line, skip(line, i), ':');
            i = skip(line, i);
            StringBuilder value = new StringBuilder();
            if (line.charAt(i) == '"') {
                i = string(line, i, value);
            } else {
                while (i < line.length() && (Character.isDigit(line.charAt(i)) || line.charAt(i) == '-')) {
                    value.append(line.charAt(i++));
                }
            }
            fields.put(name.toString(), value.toString());
            i = skip(line, i);
            if (line.charAt(i) == ',') {
                i++;
            }
        }
        try {
            return new Op(req(fields, "process"), req(fields, "thread"), req(fields, "type"), req(fields, "f"),
                    fields.get("key"), fields.get("value"), Long.parseLong(req(fields, "token")),
                    Long.parseLong(req(fields, "time")));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad number in history line: " + line);
        }
    }

    private static String req(Map<String, String> fields, String name) {
        String v = fields.get(name);
        if (v == null) {
            throw new IllegalArgumentException("history line without '" + name + "'");
        }
        return v;
    }

    private static int skip(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        if (i >= s.length()) {
            throw new IllegalArgumentException("truncated history line: " + s);
        }
        return i;
    }

    private static int expect(String s, int i, char c) {
        if (s.charAt(i) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + i + " in history line: " + s);
        }
        return i + 1;
    }

    private static int string(String s, int i, StringBuilder into) {
        i = expect(s, i, '"');
        while (true) {
            if (i >= s.length()) {
                throw new IllegalArgumentException("truncated history line: " + s);
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return i;
            }
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> into.append('\n');
                    case 't' -> into.append('\t');
                    case 'r' -> into.append('\r');
                    case 'u' -> {
                        into.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> into.append(e);
                }
            } else {
                into.append(c);
            }
        }
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
