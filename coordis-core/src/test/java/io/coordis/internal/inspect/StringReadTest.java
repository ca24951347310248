package io.coordis.internal.inspect;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** How a string key is classified from what {@code string-state.lua} read. */
class StringReadTest {
    private static final long NOW = 1_800_000_000_000L;

    private static StringRead read(String value, long pttl, Long fence, Map<String, String> holder,
                                   Map<String, String> leadership, Long term) {
        return new StringRead("string", value, value.length(), pttl,
                fence == null ? OptionalLong.empty() : OptionalLong.of(fence), holder, leadership,
                term == null ? OptionalLong.empty() : OptionalLong.of(term), List.of(), NOW, List.of(), 0);
    }

    @Test
    void classifiesByTheDetailsCoordisKeepsFirst() {
        assertThat(read("tok", 5000, 3L, Map.of("token", "tok"), Map.of(), null).kind()).isEqualTo(StringRead.Kind.LOCK);
        assertThat(read("node-a", 5000, null, Map.of(), Map.of("id", "node-a"), 4L).kind())
                .isEqualTo(StringRead.Kind.ELECTION);
        assertThat(read("other", 5000, null, Map.of(), Map.of(), 4L).kind()).as("foreign value on an election")
                .isEqualTo(StringRead.Kind.ELECTION);
        assertThat(read("other", -1, 4L, Map.of(), Map.of(), null).kind()).as("foreign value on a Coordis lock, no TTL")
                .isEqualTo(StringRead.Kind.LOCK);
    }

    @Test
    void foreignKeysNeedATtlAndAShortValueOrALegacyExpiry() {
        assertThat(read("6f1c2a", 30_000, null, Map.of(), Map.of(), null).kind()).isEqualTo(StringRead.Kind.LOCK);
        assertThat(read("6f1c2a", -1, null, Map.of(), Map.of(), null).kind()).isEqualTo(StringRead.Kind.OTHER);
        assertThat(read("x".repeat(129), 30_000, null, Map.of(), Map.of(), null).kind()).isEqualTo(StringRead.Kind.OTHER);
        StringRead seconds = read(Long.toString(NOW / 1000 + 30), -1, null, Map.of(), Map.of(), null);
        assertThat(seconds.kind()).isEqualTo(StringRead.Kind.LEGACY_LOCK);
        assertThat(seconds.ttl()).contains(Duration.ofMillis(30_999));
        StringRead millis = read(Long.toString(NOW + 5000), 9000, 2L, Map.of(), Map.of(), null);
        assertThat(millis.kind()).isEqualTo(StringRead.Kind.LEGACY_LOCK);
        assertThat(millis.ttl()).as("the stored expiry, not the key's TTL").contains(Duration.ofMillis(5000));
        assertThat(read(Long.toString(NOW / 1000 - 10), -1, null, Map.of(), Map.of(), null).legacyExpired()).isTrue();
        assertThat(read("1", 30_000, null, Map.of(), Map.of(), null).kind()).as("SET lock 1 NX EX 30")
                .isEqualTo(StringRead.Kind.LOCK);
    }
}
