package io.coordis.internal.inspect;

import io.coordis.internal.Keys;
import io.coordis.internal.lock.LockLayout;

import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * How to tell the keys and channels Coordis keeps beside a user's key ({@link Keys#derived}) from a user's
 * own keys, and whose they are. Each primitive names its keys in its layout ({@code LockLayout},
 * {@code ElectionLayout}, {@code QueueLayout}, {@code SignalLayout}).
 */
final class KeyLayout {
    private static final Set<String> SUFFIXES = Set.copyOf(Keys.reservedSuffixes());
    private static final Set<String> PREFIXED = Set.copyOf(Keys.reservedSegments());

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
        // Redlock's restart-guard marker is per node, after any key prefix
        return key.endsWith(LockLayout.RESTART_GUARD_MARKER) || derived(key).isPresent();
    }

    /** The name {@code key} belongs to when it is the key {@code derive} makes from that name. */
    static Optional<String> owner(String key, UnaryOperator<String> derive) {
        return derived(key).map(Derived::base).filter(base -> derive.apply(base).equals(key));
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
