package io.coordis.internal.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class GlobsTest {
    @Test
    void plainTextIsUnchanged() {
        assertThat(Globs.escape("jobs:done")).isEqualTo("jobs:done");
    }

    @Test
    void everyGlobCharacterIsEscaped() {
        assertThat(Globs.escape("a*b?c[d]e\\f")).isEqualTo("a\\*b\\?c\\[d\\]e\\\\f");
    }

    @Test
    void unicastPatternNeedsAtLeastOneCharacterAfterThePrefix() {
        assertThat(Globs.unicast("w[1]")).isEqualTo("w\\[1\\]?*");
    }
}
