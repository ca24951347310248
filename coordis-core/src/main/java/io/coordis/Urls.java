package io.coordis;

import io.coordis.internal.redis.Uris;

/** Redis URLs as Coordis shows them: without credentials. */
public final class Urls {
    private Urls() {
    }

    /**
     * {@code text} with every {@code user:password@} part of a URL in it (after a scheme, or at the start of a
     * URL written without one) replaced by {@code ***@}; {@code null} for {@code null}. Thread-safe.
     *
     * @param text any text, null included
     * @return the text without passwords
     */
    public static String redact(String text) {
        return Uris.redact(text);
    }
}
