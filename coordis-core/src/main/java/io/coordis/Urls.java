package io.coordis;

import java.util.regex.Pattern;

/** Redis URLs as Coordis shows them: without credentials. */
public final class Urls {
    /** {@code user:password@} after a scheme, or at the start of a URL written without one. */
    private static final Pattern USER_INFO = Pattern.compile("(^|://|\\s)[^@/\\s]*@");

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
        return text == null ? null : USER_INFO.matcher(text).replaceAll("$1***@");
    }
}
