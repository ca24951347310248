package io.coordis.internal.redis;

/** Redis glob patterns ({@code PSUBSCRIBE}, {@code PUBSUB CHANNELS}). */
final class Globs {
    private Globs() {
    }

    /** {@code text} with the glob characters {@code * ? [ ] \} escaped, so it matches only itself. */
    static String escape(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }

    /** The pattern matching {@code prefix} followed by at least one character: the prefix's unicast channels. */
    static String unicast(String prefix) {
        return escape(prefix) + "?*";
    }
}
