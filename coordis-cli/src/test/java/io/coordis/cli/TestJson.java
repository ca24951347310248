package io.coordis.cli;

import tools.jackson.core.JsonParser;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.jr.ob.JSON;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON output strictly, for tests (jackson-jr): one document and nothing after it, no duplicate keys.
 * Objects become {@code Map<String, Object>} in their order, arrays {@code List<Object>}, integers
 * {@code Long}, other numbers {@code Double}. Anything malformed fails the test.
 */
final class TestJson {
    private static final JSON READER = JSON.std.with(JSON.Feature.FAIL_ON_DUPLICATE_MAP_KEYS);
    private static final JsonFactory FACTORY = new JsonFactory();

    private TestJson() {
    }

    static Map<String, Object> object(String text) {
        Object v;
        try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), text)) {
            v = READER.anyFrom(p);
            if (p.nextToken() != null) {
                throw new AssertionError("more than one JSON document: " + text);
            }
        } catch (RuntimeException e) {
            throw new AssertionError("not JSON (" + e.getMessage() + "): " + text, e);
        }
        if (!(v instanceof Map)) {
            throw new AssertionError("not a JSON object: " + text);
        }
        return map(longs(v));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    /** Integers as {@code Long} whatever their size, so tests compare with {@code 0L}. */
    private static Object longs(Object value) {
        if (value instanceof Integer i) {
            return i.longValue();
        }
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put((String) k, longs(v)));
            return out;
        }
        if (value instanceof List<?> l) {
            return l.stream().map(TestJson::longs).toList();
        }
        return value;
    }
}
