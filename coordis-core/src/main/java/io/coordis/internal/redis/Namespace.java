package io.coordis.internal.redis;

import java.util.Objects;

/**
 * A client's key prefix ({@code Coordis.Builder.keyPrefix}), and the one place that puts it before a key or
 * channel name, escapes it in a glob pattern or takes it off a name read back from Redis. With the prefix
 * {@code billing:} the lock {@code orders} is the key {@code billing:orders} and the signal {@code done} the
 * channel {@code billing:done}; the empty prefix leaves every name as it is. The prefix is not checked here (the
 * builder refuses braces, glob characters and blanks). Immutable and thread-safe.
 */
public final class Namespace {
    /** No prefix: every name is its own key and channel. */
    public static final Namespace NONE = new Namespace("");

    private final String prefix;

    private Namespace(String prefix) {
        this.prefix = prefix;
    }

    /**
     * The namespace of {@code prefix}.
     *
     * @param prefix put before every name; empty for none
     * @return the namespace
     */
    public static Namespace of(String prefix) {
        Objects.requireNonNull(prefix, "key prefix must not be null (use \"\" for none)");
        return prefix.isEmpty() ? NONE : new Namespace(prefix);
    }

    /**
     * The namespace inside this one whose names begin with {@code more}: a lock's or an election's own prefix after
     * the client's.
     *
     * @param more put after this prefix; empty for this namespace itself
     * @return the namespace of this prefix followed by {@code more}
     */
    public Namespace then(String more) {
        Objects.requireNonNull(more, "key prefix must not be null (use \"\" for none)");
        return more.isEmpty() ? this : new Namespace(prefix + more);
    }

    /**
     * The prefix, as the client's settings gave it.
     *
     * @return the prefix, or the empty string
     */
    public String prefix() {
        return prefix;
    }

    /**
     * The Redis key of {@code name}.
     *
     * @param name the name as the caller gave it
     * @return the prefix followed by the name
     */
    public String key(String name) {
        return prefix + name;
    }

    /**
     * The pub/sub channel of {@code name}.
     *
     * @param name the channel as the caller gave it
     * @return the prefix followed by the name
     */
    public String channel(String name) {
        return prefix + name;
    }

    /**
     * The glob pattern ({@code PSUBSCRIBE}, {@code SCAN MATCH}) of {@code glob} under this prefix: the prefix's own
     * glob characters ({@code * ? [ ] \}) are escaped, so it matches only itself; {@code glob} is left as it is.
     *
     * @param glob the caller's pattern, e.g. {@code jobs:*}
     * @return the escaped prefix followed by {@code glob}
     */
    public String pattern(String glob) {
        return Globs.escape(prefix) + glob;
    }

    /**
     * The pattern of the unicast channel {@code channel}: the channel itself (escaped, prefix included) followed by
     * at least one character, which each unicast waiter's own suffix supplies.
     *
     * @param channel the unicast channel as the caller gave it
     * @return the pattern matching every waiter on that channel
     */
    public String unicast(String channel) {
        return Globs.unicast(channel(channel));
    }

    /**
     * Whether {@code wireName} (a key or channel as Redis has it) names something under this prefix: it begins with
     * the prefix and has at least one character more. Every non-empty name is under the empty prefix.
     *
     * @param wireName the name as Redis has it
     * @return whether it names something in this namespace
     */
    public boolean holds(String wireName) {
        return wireName.startsWith(prefix) && wireName.length() > prefix.length();
    }

    /**
     * The name as the caller knows it: {@code wireName} without the prefix. A name that does not begin with the
     * prefix is returned as it is.
     *
     * @param wireName the key or channel as Redis has it
     * @return the name without the prefix
     */
    public String local(String wireName) {
        return wireName.startsWith(prefix) ? wireName.substring(prefix.length()) : wireName;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Namespace n && n.prefix.equals(prefix);
    }

    @Override
    public int hashCode() {
        return prefix.hashCode();
    }

    @Override
    public String toString() {
        return "Namespace['" + prefix + "']";
    }
}
