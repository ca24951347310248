package io.coordis.internal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Names of the extra keys and channels Coordis keeps beside a user's key, in the same Redis Cluster hash
 * slot: a key with a {@code {hash tag}} keeps it ({@code a{b}c} → {@code a{b}c:fence}); any other key is
 * wrapped ({@code orders} → {@code {orders}:fence}).
 *
 * <p>A key that contains braces but no valid tag (such as {@code a{}b}) hashes as a whole, which no
 * derived name can reproduce; on Redis Cluster such names fail with CROSSSLOT, elsewhere they work.
 */
public final class Keys {
    /** Suffixes of the keys Coordis keeps beside an object (locks, elections, queues, events, latches). */
    private static final List<String> SUFFIXES = List.of("fence", "holder", "released", "audit",
            "readers", "readers:details", "latch",
            "term", "leader", "changed", "event", "consumers", "attempts", "dead", "delayed", "delayed:data", "enqueued",
            "settled", "holders", "permits", "waiters", "waiters-until", "rate",
            "line", "line-until");
    /** Leading segments of per-consumer queue keys ({@code {q}:hb:ID}, {@code {q}:proc:ID:K}, {@code {q}:settled:ID}). */
    private static final List<String> SEGMENTS = List.of("hb:", "proc:", "settled:");

    /**
     * The longest name Coordis accepts for a lock, election, queue, channel or event: 1,024 bytes of UTF-8.
     * Redis itself takes keys of up to 512 MB, but a name travels many times over: every script call carries
     * it in the key and in up to five derived keys and a channel name, every log line and error message
     * quotes it, and {@code coordis ls} and {@code redis-cli} show it to people. Names that identify things
     * (a resource path, a tenant and an id, a UUID) stay far below this; a longer one is almost always a
     * payload passed by mistake, and would make every call slower and every message unreadable. Hash a long
     * identifier into the name instead.
     */
    public static final int MAX_NAME_BYTES = 1024;

    private Keys() {
    }

    /**
     * A name the caller gives an object, checked: not null, not empty, short enough ({@link #requireShort}) and
     * not another object's key ({@link #requireNotDerived}). A {@code blankHint} refuses a blank name too, with
     * the hint in the message ({@code name the resource to lock, e.g. "orders:42"}); {@code null} allows it.
     *
     * @param what what the name names, for the messages ("lock name")
     * @throws IllegalArgumentException saying which check failed
     */
    public static String requireName(String what, String name, String blankHint) {
        Objects.requireNonNull(name, what + " must not be null");
        if (blankHint != null && name.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank: " + blankHint);
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        requireShort(what, name);
        requireNotDerived(what, name);
        return name;
    }

    /**
     * Refuses a name longer than {@link #MAX_NAME_BYTES} in UTF-8, before anything is sent.
     *
     * @param what what the name names, for the message ("lock name", "channel")
     * @throws IllegalArgumentException naming the limit, the name's length and its beginning
     */
    public static String requireShort(String what, String name) {
        if (name.length() * 3L <= MAX_NAME_BYTES) {
            return name; // at most 3 bytes per char: short enough without counting
        }
        long bytes = Utf8.length(name);
        if (bytes > MAX_NAME_BYTES) {
            int shown = Math.min(name.length(), 40);
            if (shown < name.length() && Character.isHighSurrogate(name.charAt(shown - 1))) {
                shown--;
            }
            throw new IllegalArgumentException(what + " '" + name.substring(0, shown) + "…' is " + bytes
                    + " bytes long in UTF-8, over the limit of " + MAX_NAME_BYTES + " bytes; use a shorter name "
                    + "(a hash of a long identifier, for example)");
        }
        return name;
    }

    /** The suffixes of derived keys ({@code fence}, {@code holder}, ...), for tools that recognise them. */
    public static List<String> reservedSuffixes() {
        return SUFFIXES;
    }

    /** The leading segments of per-consumer derived keys ({@code hb:}, {@code proc:}, {@code settled:}). */
    public static List<String> reservedSegments() {
        return SEGMENTS;
    }

    /**
     * Refuses a name that is one of the keys Coordis derives for another object ({@code {orders}:fence} is
     * the fencing counter of the lock {@code orders}): used as an object of its own it would read or
     * overwrite that object's state.
     *
     * @throws IllegalArgumentException naming the object the key belongs to
     */
    public static void requireNotDerived(String what, String name) {
        Optional<String> owner = ownerOf(name);
        if (owner.isPresent()) {
            throw new IllegalArgumentException(what + " '" + name + "' is a key Coordis keeps for " + owner.get()
                    + "; choose another name");
        }
    }

    /** For a derived key, its owner and role in words (e.g. "'orders' (its fence)"); empty for any other name. */
    public static Optional<String> ownerOf(String name) {
        if (name == null || !hasHashTag(name)) {
            return Optional.empty(); // derived keys always carry a hash tag
        }
        for (String suffix : SUFFIXES) {
            if (name.endsWith(":" + suffix)) {
                String owner = unwrap(name.substring(0, name.length() - suffix.length() - 1));
                if (!owner.isEmpty() && derived(owner, suffix).equals(name)) {
                    return Optional.of("'" + owner + "' (its " + suffix + ")");
                }
            }
        }
        for (String segment : SEGMENTS) {
            int at = name.indexOf(":" + segment);
            while (at > 0) {
                String owner = unwrap(name.substring(0, at));
                if (!owner.isEmpty() && name.startsWith(derived(owner, segment))) {
                    return Optional.of("the queue '" + owner + "' (a consumer's "
                            + segment.substring(0, segment.length() - 1) + " key)");
                }
                at = name.indexOf(":" + segment, at + 1);
            }
        }
        return Optional.empty();
    }

    /** {@code {x}} (a name wrapped to make its derived keys) back to {@code x}; any other base as it is. */
    private static String unwrap(String base) {
        if (base.length() > 2 && base.charAt(0) == '{' && base.charAt(base.length() - 1) == '}') {
            String inner = base.substring(1, base.length() - 1);
            if (!hasHashTag(inner) && inner.indexOf('}') < 0) {
                return inner;
            }
        }
        return hasHashTag(base) ? base : "";
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
