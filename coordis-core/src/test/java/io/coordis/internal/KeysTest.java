package io.coordis.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KeysTest {

    @Test
    void plainNameIsWrappedInAHashTag() {
        assertThat(Keys.derived("orders:42", "fence")).isEqualTo("{orders:42}:fence");
    }

    @Test
    void existingHashTagIsReused() {
        assertThat(Keys.derived("app{user:7}:lock", "fence")).isEqualTo("app{user:7}:lock:fence");
    }

    @Test
    void emptyBracesAreNotAHashTag() {
        assertThat(Keys.hasHashTag("a{}b")).isFalse();
        assertThat(Keys.hasHashTag("{x}")).isTrue();
        assertThat(Keys.hasHashTag("x}{")).isFalse();
    }

    @Test
    void derivedKeysLandInTheSameClusterSlotAsTheName() {
        for (String name : new String[]{"orders", "a{b}c", "{tag}rest", "x{y}z{w}", "plain:with:colons"}) {
            assertThat(Crc16Slot.of(Keys.derived(name, "fence"))).as(name).isEqualTo(Crc16Slot.of(name));
        }
    }

    /** Redis Cluster's key → slot function, to check the derivation rule. */
    static final class Crc16Slot {
        static int of(String key) {
            String k = key;
            int open = k.indexOf('{');
            if (open >= 0) {
                int close = k.indexOf('}', open + 1);
                if (close > open + 1) {
                    k = k.substring(open + 1, close);
                }
            }
            int crc = 0;
            for (byte b : k.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                crc ^= (b & 0xff) << 8;
                for (int i = 0; i < 8; i++) {
                    crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
                    crc &= 0xffff;
                }
            }
            return crc % 16384;
        }
    }

    @org.junit.jupiter.api.Test
    void namesThatAreAnotherObjectsDerivedKeysAreRecognisedAndOthersAreNot() {
        for (String owner : java.util.List.of("orders", "a{b}c", "x:y", "{tagged}")) {
            for (String suffix : java.util.List.of("fence", "holder", "released", "audit", "term", "leader", "changed",
                    "event", "consumers", "attempts", "dead", "delayed", "delayed:data", "enqueued", "settled", "hb:c1",
                    "proc:c1:3", "settled:c1")) {
                String derived = Keys.derived(owner, suffix);
                org.assertj.core.api.Assertions.assertThat(Keys.ownerOf(derived)).as(derived).isPresent();
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> Keys.requireNotDerived("lock name", derived))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(derived)
                        .hasMessageContaining("choose another name");
            }
        }
        for (String plain : java.util.List.of("orders", "orders:fence", "{user42}:session", "a{}b:fence", "{a}b:x",
                "jobs:hb:1", "{}:fence", "fence")) {
            org.assertj.core.api.Assertions.assertThat(Keys.ownerOf(plain)).as(plain).isEmpty();
        }
    }

    @Test
    void aNameOfAtMostTheLimitInUtf8IsAcceptedAndOneByteMoreIsRefusedNamingBothLengths() {
        assertThat(Keys.MAX_NAME_BYTES).isEqualTo(1024);
        String longest = "n".repeat(1024);
        assertThat(Keys.requireShort("lock name", longest)).isSameAs(longest);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Keys.requireShort("lock name", longest + "n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock name '" + "n".repeat(40) + "…' is 1025 bytes long in UTF-8, over the limit of 1024 "
                        + "bytes; use a shorter name (a hash of a long identifier, for example)");
    }

    @Test
    void theLimitCountsBytesNotChars() {
        assertThat(Keys.requireShort("queue name", "€".repeat(341))).hasSize(341); // 1,023 bytes
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Keys.requireShort("queue name", "€".repeat(342)))
                .hasMessageContaining("queue name '" + "€".repeat(40) + "…' is 1026 bytes long");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Keys.requireShort("channel", "a" + "😀".repeat(256)))
                .hasMessageContaining("is 1025 bytes long").hasMessageContaining("limit of 1024 bytes")
                .hasMessageContaining("'a" + "😀".repeat(19) + "…'"); // a surrogate pair is never cut in half
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Keys.requireShort("event name", "x".repeat(10_000_000)))
                .hasMessageContaining("is 10000000 bytes long");
    }
}
