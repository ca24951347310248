package io.coordis.internal.redis;

import io.coordis.CoordisException;

import java.util.List;

/**
 * Checks the shape of script replies before anyone trusts them: a reply of another shape means the
 * connection or the script is not what the caller thinks, and becomes a {@link CoordisException}
 * instead of a {@code ClassCastException} deep inside a primitive.
 */
public final class Replies {
    private Replies() {
    }

    /** {@code reply} as a list of at least {@code minSize} elements. */
    public static List<?> list(Object reply, int minSize, LuaScript script, String node) {
        if (reply instanceof List<?> l && l.size() >= minSize) {
            return l;
        }
        throw unexpected(reply, script, node);
    }

    /** Element {@code i} of a checked list as a number. */
    public static long number(List<?> reply, int i, LuaScript script, String node) {
        if (reply.get(i) instanceof Long n) {
            return n;
        }
        throw unexpected(reply, script, node);
    }

    /** Element {@code i} as a string, or {@code null} for a nil element. */
    public static String string(List<?> reply, int i, LuaScript script, String node) {
        Object v = reply.get(i);
        if (v == null || v instanceof String) {
            return (String) v;
        }
        throw unexpected(reply, script, node);
    }

    /** Whether a checked list starts with the number 1 (the scripts' "done"). */
    public static boolean isOne(List<?> reply) {
        return !reply.isEmpty() && Long.valueOf(1).equals(reply.get(0));
    }

    private static CoordisException unexpected(Object reply, LuaScript script, String node) {
        String shown = String.valueOf(reply);
        if (shown.length() > 120) {
            shown = shown.substring(0, 120) + "...";
        }
        return new CoordisException(node, "unexpected reply from Redis at " + node + " to " + script.name() + ": " + shown, null);
    }
}
