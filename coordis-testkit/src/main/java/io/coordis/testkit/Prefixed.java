package io.coordis.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * The key prefix of the test run: {@code $COORDIS_TEST_KEY_PREFIX} (e.g. {@code ci:}), empty when unset. Test
 * clients put it before every name (the Coordis client's own key prefix option), and the least-privilege pass
 * limits the default user of the servers the test kit starts to keys and channels under it, so the whole suite
 * proves that Coordis touches nothing outside its prefix. Tests that read or write Redis directly name keys and
 * channels through {@link #key} and {@link #derived}, so they find what the prefixed clients wrote.
 */
public final class Prefixed {
    /** The environment variable that sets the prefix. */
    public static final String ENV = "COORDIS_TEST_KEY_PREFIX";

    private static final String PREFIX = read();

    /**
     * The patterns the suite's pattern waits subscribe to (after the prefix). Redis checks a {@code PSUBSCRIBE}
     * pattern literally against a user's channel rules ({@code &ci:*} does not allow {@code PSUBSCRIBE ci:t[ab]}),
     * so each is granted by itself, as an application grants the patterns it waits on.
     */
    private static final List<String> PATTERN_WAITS = List.of("build:*:done", "t[ab]", "spread:*", "it:jobs:*");

    private Prefixed() {
    }

    private static String read() {
        String env = System.getenv(ENV);
        if (env == null || env.isEmpty()) {
            return "";
        }
        for (char c : env.toCharArray()) {
            if ("{}*?[]\\ ".indexOf(c) >= 0 || Character.isWhitespace(c)) {
                throw new IllegalStateException("$" + ENV + " '" + env + "' holds '" + c + "'; use plain characters, "
                        + "e.g. ci:");
            }
        }
        return env;
    }

    /**
     * The prefix; empty when the run has none.
     *
     * @return the prefix
     */
    public static String prefix() {
        return PREFIX;
    }

    /**
     * The Redis key (or channel) of {@code name} as a prefixed client names it.
     *
     * @param name the name as the test gives it
     * @return the name after the prefix
     */
    public static String key(String name) {
        return PREFIX + name;
    }

    /**
     * The key (or channel) Coordis keeps beside {@code name} with {@code suffix}: {@code {name}:suffix}, or
     * {@code name:suffix} when the name has its own hash tag, after the prefix.
     *
     * @param name   the object's name, without the prefix
     * @param suffix the derived key's suffix
     * @return the derived key
     */
    public static String derived(String name, String suffix) {
        String key = key(name);
        int open = key.indexOf('{');
        boolean tagged = open >= 0 && key.indexOf('}', open + 1) > open + 1;
        return tagged ? key + ":" + suffix : "{" + key + "}:" + suffix;
    }

    /**
     * The ACL key and channel rules of a least-privileged default user: every key and channel without a prefix,
     * else those under it and their derived keys ({@code ~ci:* ~{ci:* &ci:* &{ci:*}) and the suite's pattern
     * waits.
     */
    static List<String> aclPatterns() {
        if (PREFIX.isEmpty()) {
            return List.of("~*", "&*");
        }
        // Redis 6.2 gives a new user every channel (acl-pubsub-default allchannels): take that back first
        List<String> rules = new ArrayList<>(List.of("resetkeys", "resetchannels", "~" + PREFIX + "*",
                "~{" + PREFIX + "*", "&" + PREFIX + "*", "&{" + PREFIX + "*"));
        PATTERN_WAITS.forEach(p -> rules.add("&" + PREFIX + p));
        return List.copyOf(rules);
    }
}
