package io.coordis.cli.support;

import tools.jackson.core.JsonGenerator;
import tools.jackson.jr.ob.JSON;
import tools.jackson.jr.ob.JacksonJrExtension;
import tools.jackson.jr.ob.api.ExtensionContext;
import tools.jackson.jr.ob.api.ReaderWriterProvider;
import tools.jackson.jr.ob.api.ValueWriter;
import tools.jackson.jr.ob.impl.JSONWriter;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Writes the documents of {@code -o json} (jackson-jr): {@link Map}s in their iteration order, collections,
 * strings, numbers, booleans and {@code null}, which is written. {@link Optional} and {@link OptionalLong}
 * become their value or {@code null}, a {@link Duration} milliseconds, an {@link Instant} milliseconds since
 * the epoch. One line. Only the JSON paths touch this class, so the library loads only for them.
 */
public final class Json {
    private static final JSON WRITER = JSON.builder().enable(JSON.Feature.WRITE_NULL_PROPERTIES)
            .register(new JacksonJrExtension() {
                @Override
                protected void register(ExtensionContext context) {
                    context.insertProvider(new TimesAndOptionals());
                }
            }).build();

    private Json() {
    }

    public static String write(Object value) {
        return WRITER.asString(value);
    }

    /** Writers for the value types the views hold that JSON has no word for. */
    private static final class TimesAndOptionals extends ReaderWriterProvider {
        @Override
        public ValueWriter findValueWriter(JSONWriter context, Class<?> type) {
            if (type == Optional.class) {
                return writer(type, (w, g, v) -> w.writeValue(((Optional<?>) v).orElse(null)));
            }
            if (type == OptionalLong.class) {
                return writer(type, (w, g, v) -> {
                    OptionalLong n = (OptionalLong) v;
                    w.writeValue(n.isPresent() ? (Object) n.getAsLong() : null);
                });
            }
            if (type == Duration.class) {
                return writer(type, (w, g, v) -> g.writeNumber(((Duration) v).toMillis()));
            }
            if (type == Instant.class) {
                return writer(type, (w, g, v) -> g.writeNumber(((Instant) v).toEpochMilli()));
            }
            return null;
        }

        private static ValueWriter writer(Class<?> type, Body body) {
            return new ValueWriter() {
                @Override
                public void writeValue(JSONWriter context, JsonGenerator g, Object value) {
                    body.write(context, g, value);
                }

                @Override
                public Class<?> valueType() {
                    return type;
                }
            };
        }
    }

    private interface Body {
        public void write(JSONWriter context, JsonGenerator g, Object value);
    }
}
