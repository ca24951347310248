package io.coordis.cli.support;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads durations the way people write them: {@code 500ms}, {@code 30s}, {@code 1.5s}, {@code 5m},
 * {@code 1h}, sums such as {@code 1m30s}, and {@code 0}. Units: {@code ms}, {@code s}, {@code m},
 * {@code h}. Negative values are rejected; rounding is to the nearest nanosecond.
 */
public final class DurationParser implements ITypeConverter<Duration> {
    private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+");
    private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
    private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /**
     * @throws TypeConversionException naming the input and showing valid forms
     */
    static Duration parse(String value) {
        String text = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        if (text.equals("0")) {
            return Duration.ZERO;
        }
        if (!WHOLE.matcher(text).matches()) {
            throw invalid(value);
        }
        BigDecimal nanos = BigDecimal.ZERO;
        Matcher part = PART.matcher(text);
        while (part.find()) {
            nanos = nanos.add(new BigDecimal(part.group(1)).multiply(BigDecimal.valueOf(unitNanos(part.group(2)))));
        }
        nanos = nanos.setScale(0, RoundingMode.HALF_UP);
        if (nanos.compareTo(MAX_NANOS) > 0) {
            throw new TypeConversionException("invalid duration '" + value + "': too long (at most "
                    + Duration.ofNanos(Long.MAX_VALUE).toHours() + "h)");
        }
        return Duration.ofNanos(nanos.longValueExact());
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> 3_600_000_000_000L;
            default -> throw new IllegalArgumentException("unit " + unit);
        };
    }

    private static TypeConversionException invalid(String value) {
        return new TypeConversionException("invalid duration '" + value + "': use e.g. 500ms, 30s, 5m, 1h or 1.5s");
    }
}
