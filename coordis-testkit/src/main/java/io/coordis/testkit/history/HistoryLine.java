package io.coordis.testkit.history;

import tools.jackson.jr.ob.JSON;

import java.util.LinkedHashMap;
import java.util.Map;

/** The one-line JSON form of an {@link Op} in a history file (jackson-jr): string and integer fields only. */
final class HistoryLine {
    private HistoryLine() {
    }

    static String write(Op op) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("process", op.process());
        fields.put("thread", op.thread());
        fields.put("type", op.type());
        fields.put("f", op.f());
        fields.put("key", op.key());
        fields.put("value", op.value());
        fields.put("token", op.token());
        fields.put("time", op.micros());
        return JSON.std.asString(fields);
    }

    /** Reads a line written by {@link #write}; throws IllegalArgumentException for anything else. */
    static Op read(String line) {
        Map<String, Object> fields;
        try {
            fields = JSON.std.mapFrom(line);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a history line (" + e.getMessage() + "): " + line, e);
        }
        return new Op(text(fields, "process", true), text(fields, "thread", true), text(fields, "type", true),
                text(fields, "f", true), text(fields, "key", false), text(fields, "value", false),
                number(fields, "token"), number(fields, "time"));
    }

    private static String text(Map<String, Object> fields, String name, boolean required) {
        Object v = fields.get(name);
        if (v == null && required) {
            throw new IllegalArgumentException("history line without '" + name + "'");
        }
        return v == null ? null : v.toString();
    }

    private static long number(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        if (v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        throw new IllegalArgumentException(v == null ? "history line without '" + name + "'"
                : "bad number in history line: '" + name + "' is " + v);
    }
}
