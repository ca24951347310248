package io.coordis.internal;

/**
 * Names of the extra keys and channels Coordis keeps beside a user's key, in the same Redis Cluster hash
 * slot: a key with a {@code {hash tag}} keeps it ({@code a{b}c} → {@code a{b}c:fence}); any other key is
 * wrapped ({@code orders} → {@code {orders}:fence}).
 *
 * <p>A key that contains braces but no valid tag (such as {@code a{}b}) hashes as a whole, which no
 * derived name can reproduce; on Redis Cluster such names fail with CROSSSLOT, elsewhere they work.
 */
public final class Keys {
    private Keys() {
    }

    public static String derived(String key, String suffix) {
        return hasHashTag(key) ? key + ":" + suffix : "{" + key + "}:" + suffix;
    }

    static boolean hasHashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return false;
        }
        int close = key.indexOf('}', open + 1);
        return close > open + 1;
    }
}
