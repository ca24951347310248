package io.coordis.inspect;

import io.coordis.internal.Keys;

import java.util.Optional;
import java.util.Set;

/**
 * The keys and channels Coordis keeps beside a user's key ({@link Keys#derived}): which suffixes exist
 * (locks: fence, holder, released, audit; elections: term, leader, changed; signals: event; queues:
 * consumers, hb:ID, proc:ID:K, settled:ID, attempts, dead, delayed, delayed:data, enqueued — see
 * {@code io.coordis.queue.QueueKeys}), and how to tell such a key from a user's own key.
 */
final class KeyLayout {
    private static final Set<String> SUFFIXES = Set.copyOf(Keys.reservedSuffixes());
    private static final Set<String> PREFIXED = Set.copyOf(Keys.reservedSegments());
    /** Redlock's restart-guard marker (one per node, not derived from a name). */
    static final String REDLOCK_MARKER = "coordis:redlock:verified";

    private KeyLayout() {
    }

    /** A derived key: the name it belongs to and its suffix. */
    record Derived(String base, String suffix) {
    }

    /**
     * The name {@code key} was derived from, when it has the shape of a Coordis derived key. A user's own key
     * of exactly that shape ({@code {orders}:dead}) cannot be told apart, and counts as derived.
     */
    static Optional<Derived> derived(String key) {
        for (int colon = key.indexOf(':'); colon > 0; colon = key.indexOf(':', colon + 1)) {
            String base = key.substring(0, colon);
            String suffix = key.substring(colon + 1);
            if (!known(suffix)) {
                continue;
            }
            if (base.length() > 2 && base.startsWith("{") && base.endsWith("}")) {
                String inner = base.substring(1, base.length() - 1);
                if (Keys.derived(inner, suffix).equals(key)) {
                    return Optional.of(new Derived(inner, suffix));
                }
            }
            if (Keys.derived(base, suffix).equals(key)) {
                return Optional.of(new Derived(base, suffix));
            }
        }
        return Optional.empty();
    }

    static boolean isDerived(String key) {
        return key.endsWith(REDLOCK_MARKER) || derived(key).isPresent(); // the marker after any key prefix
    }

    private static boolean known(String suffix) {
        if (SUFFIXES.contains(suffix)) {
            return true;
        }
        for (String p : PREFIXED) {
            if (suffix.startsWith(p) && suffix.length() > p.length()) {
                return true;
            }
        }
        return false;
    }
}
