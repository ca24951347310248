package io.coordis.internal;

/** Sizes of strings as they travel to Redis (UTF-8), counted without encoding them. */
public final class Utf8 {
    private Utf8() {
    }

    /**
     * How many bytes {@code s} takes in UTF-8: 1 to 4 per code point; an unpaired surrogate counts 1, since
     * the encoder replaces it with {@code '?'}. A long, not an int: three bytes per char of a huge string
     * overflow an int.
     */
    public static long length(CharSequence s) {
        long bytes = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes += 1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
