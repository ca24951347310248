package io.coordis.internal;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class Utf8Test {

    @Test
    void countsWhatTheEncoderWrites() {
        for (String s : List.of("", "orders:42", "é", "€", "😀", "a😀b", "\uD83D", "\uDE00x", "x\uD83D")) {
            assertThat(Utf8.length(s)).as(s).isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        }
    }

    @Test
    void randomCharsIncludingUnpairedSurrogatesCountAsEncoded() {
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            char[] chars = new char[random.nextInt(20)];
            for (int j = 0; j < chars.length; j++) {
                chars[j] = (char) (random.nextBoolean() ? random.nextInt(0x900) : 0xD7F0 + random.nextInt(0x900));
            }
            String s = new String(chars);
            assertThat(Utf8.length(s)).as("%s", s.chars().mapToObj(Integer::toHexString).toList())
                    .isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
        }
    }
}
