package io.coordis.bench;

import tools.jackson.core.JsonGenerator;
import tools.jackson.jr.ob.JSON;
import tools.jackson.jr.ob.JacksonJrExtension;
import tools.jackson.jr.ob.api.ExtensionContext;
import tools.jackson.jr.ob.api.ReaderWriterProvider;
import tools.jackson.jr.ob.api.ValueWriter;
import tools.jackson.jr.ob.impl.JSONWriter;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The one-line JSON objects a measuring child prints and the runner reads back and keeps (jackson-jr): flat,
 * with string and number values only. Floating-point figures are written with six significant digits, and
 * NaN (a figure that could not be measured) as {@code null}.
 */
final class ResultLine {
    private static final JSON CODEC = JSON.builder().enable(JSON.Feature.WRITE_NULL_PROPERTIES)
            .register(new JacksonJrExtension() {
                @Override
                protected void register(ExtensionContext context) {
                    context.insertProvider(new SixDigits());
                }
            }).build();

    private ResultLine() {
    }

    /** {@code {"k":v,...}} in the map's order; numbers written as numbers, everything else as strings. */
    static String write(Map<String, ?> fields) {
        Map<String, Object> flat = new LinkedHashMap<>();
        fields.forEach((k, v) -> flat.put(k, v instanceof Number ? v : String.valueOf(v)));
        return CODEC.asString(flat);
    }

    /**
     * Parses one flat object: numbers come back as {@link Double}, strings as {@link String}, {@code null}
     * as {@link Double#NaN}.
     *
     * @throws IllegalArgumentException when the text is not such an object
     */
    static Map<String, Object> parse(String text) {
        Map<String, Object> read;
        try {
            read = CODEC.mapFrom(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a flat JSON object (" + e.getMessage() + "): " + text, e);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        read.forEach((k, v) -> {
            if (v != null && !(v instanceof Number) && !(v instanceof String)) {
                throw new IllegalArgumentException("'" + k + "' is neither a number nor a string in " + text);
            }
            out.put(k, v == null ? Double.NaN : v instanceof Number n ? (Object) n.doubleValue() : v);
        });
        return out;
    }

    /** Doubles and floats as {@code %.6g}, NaN and infinities as {@code null}. */
    private static final class SixDigits extends ReaderWriterProvider {
        @Override
        public ValueWriter findValueWriter(JSONWriter context, Class<?> type) {
            if (type != Double.class && type != Float.class) {
                return null;
            }
            return new ValueWriter() {
                @Override
                public void writeValue(JSONWriter context, JsonGenerator g, Object value) {
                    double d = ((Number) value).doubleValue();
                    if (Double.isNaN(d) || Double.isInfinite(d)) {
                        g.writeNull();
                    } else {
                        g.writeNumber(String.format(Locale.ROOT, "%.6g", d));
                    }
                }

                @Override
                public Class<?> valueType() {
                    return type;
                }
            };
        }
    }
}
