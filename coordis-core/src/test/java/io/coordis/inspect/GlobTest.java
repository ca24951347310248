package io.coordis.inspect;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GlobTest {

    @Test
    void matchesLikeRedis() {
        assertThat(Glob.of("*").matches("")).isTrue();
        assertThat(Glob.of("orders:*").matches("orders:42")).isTrue();
        assertThat(Glob.of("orders:*").matches("order:42")).isFalse();
        assertThat(Glob.of("a?c").matches("abc")).isTrue();
        assertThat(Glob.of("a?c").matches("ac")).isFalse();
        assertThat(Glob.of("a[bx]c").matches("axc")).isTrue();
        assertThat(Glob.of("a[^b]c").matches("abc")).isFalse();
        assertThat(Glob.of("a[^b]c").matches("adc")).isTrue();
        assertThat(Glob.of("[a-c]*").matches("bob")).isTrue();
        assertThat(Glob.of("[a-c]*").matches("dan")).isFalse();
        assertThat(Glob.of("a\\*").matches("a*")).isTrue();
        assertThat(Glob.of("a\\*").matches("ab")).isFalse();
        assertThat(Glob.of("*:*:x").matches("a:b:x")).isTrue();
        assertThat(Glob.of("*x").matches("abc")).isFalse();
    }

    @Test
    void refusesMalformedPatternsNamingTheFix() {
        assertThatThrownBy(() -> Glob.of("a[b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("bad match pattern 'a[b': the '[' at position 2 has no closing ']'; write '\\[' to match a bracket");
        assertThatThrownBy(() -> Glob.of("a\\")).hasMessageContaining("ends with a lone '\\'");
        assertThatThrownBy(() -> Glob.of("")).hasMessageContaining("empty");
    }
}
