package io.coordis.internal.latch;

import io.coordis.internal.Keys;

import java.util.OptionalLong;

/**
 * How a count-down latch is kept in Redis: one string key, {@code {name}:latch}, holding the count as a decimal
 * ({@code count.lua}, {@code count-down.lua}), with an expiry that each change moves along; the opening is
 * published on the channel of the same name. Public for the inspector; applications have no need of it.
 */
public final class LatchLayout {
    /** The suffix of the latch's key and channel. */
    static final String SUFFIX = "latch";
    /** The message that announces the opening. */
    static final String OPENED = "open";

    private LatchLayout() {
    }

    /**
     * The key that holds the latch {@code name}'s count.
     *
     * @param name the latch's name, prefix included
     * @return the key, in the name's hash slot
     */
    public static String key(String name) {
        return Keys.derived(name, SUFFIX);
    }

    /**
     * The count a latch's key holds, as its scripts read it.
     *
     * @param stored the key's value
     * @return the count; empty when the value is no whole number
     */
    public static OptionalLong count(String stored) {
        try {
            return OptionalLong.of(Long.parseLong(stored.trim()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * The channel on which the latch {@code name}'s opening is published.
     *
     * @param name the latch's name, prefix included
     * @return the channel
     */
    public static String channel(String name) {
        return Keys.derived(name, SUFFIX);
    }
}
