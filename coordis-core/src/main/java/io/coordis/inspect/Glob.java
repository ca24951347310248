package io.coordis.inspect;

/**
 * Redis glob patterns ({@code SCAN MATCH}, {@code PUBSUB CHANNELS}): {@code *}, {@code ?},
 * {@code [abc]}, {@code [^a]}, {@code [a-z]}, and {@code \} to take the next character literally. Matched
 * here too, for names that Redis cannot filter for us (queues found through their consumer registry).
 */
public final class Glob {
    private final String pattern;

    private Glob(String pattern) {
        this.pattern = pattern;
    }

    /**
     * Checks {@code pattern}.
     *
     * @param pattern a Redis glob: {@code *}, {@code ?}, {@code [...]}, {@code \} escapes
     * @return the checked pattern
     * @throws IllegalArgumentException for an empty pattern, a {@code [} without its {@code ]}, or a
     *                                  trailing {@code \}, naming the problem and the fix
     */
    public static Glob of(String pattern) {
        if (pattern == null || pattern.isEmpty()) {
            throw new IllegalArgumentException("the match pattern is empty: give a glob such as 'orders:*' or '*'");
        }
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\') {
                if (i == pattern.length() - 1) {
                    throw new IllegalArgumentException("bad match pattern '" + pattern + "': it ends with a lone "
                            + "'\\'; write '\\\\' to match a backslash");
                }
                i++;
            } else if (c == '[') {
                int close = closing(pattern, i);
                if (close < 0) {
                    throw new IllegalArgumentException("bad match pattern '" + pattern + "': the '[' at position "
                            + (i + 1) + " has no closing ']'; write '\\[' to match a bracket");
                }
                i = close;
            }
        }
        return new Glob(pattern);
    }

    /**
     * The pattern as given, for Redis.
     *
     * @return the pattern
     */
    public String pattern() {
        return pattern;
    }

    /**
     * Whether {@code text} matches, as Redis would decide.
     *
     * @param text the name to test
     * @return {@code true} when it matches
     */
    public boolean matches(String text) {
        return match(0, text, 0);
    }

    private static int closing(String p, int open) {
        int i = open + 1;
        if (i < p.length() && p.charAt(i) == '^') {
            i++;
        }
        for (; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == ']') {
                return i;
            }
        }
        return -1;
    }

    private boolean match(int pi, String s, int si) {
        String p = pattern;
        while (pi < p.length()) {
            char c = p.charAt(pi);
            switch (c) {
                case '*' -> {
                    while (pi + 1 < p.length() && p.charAt(pi + 1) == '*') {
                        pi++;
                    }
                    if (pi + 1 == p.length()) {
                        return true;
                    }
                    for (int k = si; k <= s.length(); k++) {
                        if (match(pi + 1, s, k)) {
                            return true;
                        }
                    }
                    return false;
                }
                case '?' -> {
                    if (si >= s.length()) {
                        return false;
                    }
                    si++;
                    pi++;
                }
                case '[' -> {
                    if (si >= s.length()) {
                        return false;
                    }
                    int close = closing(p, pi);
                    if (!inClass(p, pi + 1, close, s.charAt(si))) {
                        return false;
                    }
                    si++;
                    pi = close + 1;
                }
                default -> {
                    if (c == '\\') {
                        pi++;
                        c = p.charAt(pi);
                    }
                    if (si >= s.length() || s.charAt(si) != c) {
                        return false;
                    }
                    si++;
                    pi++;
                }
            }
        }
        return si == s.length();
    }

    private static boolean inClass(String p, int from, int close, char ch) {
        boolean negate = from < close && p.charAt(from) == '^';
        boolean found = false;
        for (int i = negate ? from + 1 : from; i < close; i++) {
            char c = p.charAt(i);
            if (c == '\\') {
                i++;
                found |= p.charAt(i) == ch;
            } else if (i + 2 < close && p.charAt(i + 1) == '-') {
                char lo = c;
                char hi = p.charAt(i + 2);
                if (lo > hi) {
                    char t = lo;
                    lo = hi;
                    hi = t;
                }
                found |= ch >= lo && ch <= hi;
                i += 2;
            } else {
                found |= c == ch;
            }
        }
        return negate != found;
    }

    @Override
    public String toString() {
        return pattern;
    }
}
