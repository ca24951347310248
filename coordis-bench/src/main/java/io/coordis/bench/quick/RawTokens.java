package io.coordis.bench.quick;

import java.security.SecureRandom;
import java.util.HexFormat;

/** The random values the raw Lettuce cycles lock with: 40 hex characters, as long as a Coordis token. */
final class RawTokens {
    private static final SecureRandom RANDOM = new SecureRandom();

    private RawTokens() {
    }

    static String next() {
        byte[] b = new byte[20];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
