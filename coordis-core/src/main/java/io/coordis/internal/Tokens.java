package io.coordis.internal;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Lock values: 20 bytes from {@link SecureRandom}, hex encoded, unique per acquisition. */
public final class Tokens {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int BYTES = 20;

    private Tokens() {
    }

    public static String next() {
        byte[] b = new byte[BYTES];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
