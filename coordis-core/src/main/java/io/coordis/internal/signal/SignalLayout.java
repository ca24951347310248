package io.coordis.internal.signal;

import io.coordis.internal.Keys;

/**
 * How signals are kept in Redis: a signal is a channel named as given (nothing is stored for it), and a
 * latched event also keeps its last data in {@code {name}:event} ({@code event-set.lua}) until it expires.
 * Public for the inspector; applications have no need of it.
 */
public final class SignalLayout {
    private SignalLayout() {
    }

    /**
     * The key that keeps the latched event {@code name}'s data.
     *
     * @param name the event's name, prefix included
     * @return the key, in the name's hash slot
     */
    public static String eventKey(String name) {
        return Keys.derived(name, "event");
    }
}
