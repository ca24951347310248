package io.coordis.internal.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamespaceTest {
    private final Namespace billing = Namespace.of("billing:");

    @Test
    void keysAndChannelsArePrefixed() {
        assertThat(billing.key("orders:42")).isEqualTo("billing:orders:42");
        assertThat(billing.channel("jobs:done")).isEqualTo("billing:jobs:done");
        assertThat(billing.prefix()).isEqualTo("billing:");
    }

    @Test
    void theEmptyPrefixLeavesNamesAsTheyAre() {
        assertThat(Namespace.of("")).isSameAs(Namespace.NONE);
        assertThat(Namespace.NONE.key("orders:42")).isEqualTo("orders:42");
        assertThat(Namespace.NONE.channel("jobs:done")).isEqualTo("jobs:done");
        assertThat(Namespace.NONE.pattern("jobs:*")).isEqualTo("jobs:*");
        assertThat(Namespace.NONE.local("jobs:done")).isEqualTo("jobs:done");
    }

    @Test
    void aNestedPrefixComesAfterTheClients() {
        assertThat(billing.then("locks:").key("a")).isEqualTo("billing:locks:a");
        assertThat(billing.then("")).isSameAs(billing);
        assertThat(Namespace.NONE.then("locks:")).isEqualTo(Namespace.of("locks:"));
    }

    @Test
    void patternsEscapeThePrefixButNotTheGlob() {
        Namespace odd = Namespace.of("t[1]*?\\:");
        assertThat(odd.pattern("jobs:*")).isEqualTo("t\\[1\\]\\*\\?\\\\:jobs:*");
        assertThat(billing.pattern("*")).isEqualTo("billing:*");
    }

    @Test
    void unicastEscapesTheWholeChannelAndWantsOneMoreCharacter() {
        assertThat(billing.unicast("work[1]")).isEqualTo("billing:work\\[1\\]?*");
        assertThat(Namespace.of("w*:").unicast("a")).isEqualTo("w\\*:a?*");
        assertThat(Namespace.NONE.unicast("a")).isEqualTo("a?*");
    }

    @Test
    void localStripsThePrefixAndLeavesOtherNamesAlone() {
        assertThat(billing.local("billing:jobs:done")).isEqualTo("jobs:done");
        assertThat(billing.local("other:jobs:done")).isEqualTo("other:jobs:done");
        assertThat(billing.local("billing:")).isEmpty();
        assertThat(billing.local(billing.channel("x"))).isEqualTo("x");
    }

    @Test
    void holdsOnlyNamesBeyondThePrefix() {
        assertThat(billing.holds("billing:orders")).isTrue();
        assertThat(billing.holds("billing:")).as("the prefix alone names nothing").isFalse();
        assertThat(billing.holds("other:orders")).isFalse();
        assertThat(Namespace.NONE.holds("orders")).isTrue();
        assertThat(Namespace.NONE.holds("")).isFalse();
    }

    @Test
    void equalByPrefix() {
        assertThat(Namespace.of("a:")).isEqualTo(Namespace.of("a:")).hasSameHashCodeAs(Namespace.of("a:"))
                .isNotEqualTo(Namespace.of("b:"));
        assertThat(billing).hasToString("Namespace['billing:']");
    }

    @Test
    void refusesNull() {
        assertThatThrownBy(() -> Namespace.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key prefix");
        assertThatThrownBy(() -> billing.then(null)).isInstanceOf(NullPointerException.class);
    }
}
