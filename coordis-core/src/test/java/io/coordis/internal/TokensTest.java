package io.coordis.internal;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class TokensTest {
    private static final java.util.regex.Pattern HEX40 = java.util.regex.Pattern.compile("[0-9a-f]{40}");

    @Test
    void aMillionTokensAreDistinctFortyHexDigitStrings() {
        int n = 1_000_000;
        Set<String> seen = new HashSet<>(2 * n);
        for (int i = 0; i < n; i++) {
            String token = Tokens.next();
            if (!HEX40.matcher(token).matches()) {
                throw new AssertionError("token " + i + " is not 20 bytes of hex: " + token);
            }
            if (!seen.add(token)) {
                throw new AssertionError("token " + i + " repeats an earlier one: " + token);
            }
        }
        assertThat(seen).hasSize(n);
    }
}
