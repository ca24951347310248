package io.coordis.cli.support;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationParserTest {

    @Test
    void readsEveryUnit() {
        assertThat(DurationParser.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationParser.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationParser.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationParser.parse("1h")).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void readsFractionsSumsZeroAndCapitals() {
        assertThat(DurationParser.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DurationParser.parse("0.25m")).isEqualTo(Duration.ofSeconds(15));
        assertThat(DurationParser.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(DurationParser.parse("1h2m3s4ms")).isEqualTo(Duration.ofMillis(3_723_004));
        assertThat(DurationParser.parse("0")).isEqualTo(Duration.ZERO);
        assertThat(DurationParser.parse("0ms")).isEqualTo(Duration.ZERO);
        assertThat(DurationParser.parse(" 10S ")).isEqualTo(Duration.ofSeconds(10));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "", "10", "-1s", "1.s", ".5s", "5 s", "1d", "s", "PT30S", "1.5.5s"})
    void rejectsAnythingElseShowingValidForms(String input) {
        assertThatThrownBy(() -> DurationParser.parse(input))
                .isInstanceOf(TypeConversionException.class)
                .hasMessage("invalid duration '" + input + "': use e.g. 500ms, 30s, 5m, 1h or 1.5s");
    }

    @Test
    void rejectsWhatDoesNotFitADuration() {
        assertThatThrownBy(() -> DurationParser.parse("9999999999h"))
                .isInstanceOf(TypeConversionException.class)
                .hasMessageContaining("too long");
    }
}
