package io.coordis.testkit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Every test that fails in CI and skips elsewhere reads {@code CI} the same way. */
class ContinuousIntegrationTest {
    @ParameterizedTest
    @ValueSource(strings = {"true", "TRUE", "1", "yes", " true "})
    void anyValueButBlankFalseOrZeroIsCi(String value) {
        assertThat(ContinuousIntegration.running(value)).as("CI=%s", value).isTrue();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", " ", "false", "False", "0"})
    void unsetBlankFalseOrZeroIsNot(String value) {
        assertThat(ContinuousIntegration.running(value)).as("CI=%s", value).isFalse();
    }
}
