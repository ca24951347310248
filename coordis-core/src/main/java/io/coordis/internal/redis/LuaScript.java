package io.coordis.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script loaded from a {@code .lua} resource beside the class that runs it ({@link #load}), with the
 * SHA-1 that {@code EVALSHA} uses. Immutable and thread-safe.
 *
 * @param name   the resource's name, e.g. {@code acquire.lua}
 * @param source the script as sent with {@code EVAL}
 * @param sha    lower-case hex SHA-1 of the source, as {@code SCRIPT LOAD} returns it
 */
public record LuaScript(String name, String source, String sha) {
    /** A line that stands for the shared functions of {@link #FENCING}. */
    private static final String INCLUDE_FENCING = "-- include fencing.lua";
    /** The functions that take fencing numbers, beside the lock scripts. */
    private static final String FENCING = "/io/coordis/internal/lock/fencing.lua";
    private static final Pattern INCLUDE =
            Pattern.compile("^" + Pattern.quote(INCLUDE_FENCING) + "$",
                    Pattern.MULTILINE);

    /**
     * Loads {@code resource} relative to {@code anchor}'s package; fails fast when it is missing. A line
     * {@value #INCLUDE_FENCING} is replaced by the functions that take fencing numbers, which every script that
     * takes them shares.
     */
    public static LuaScript load(Class<?> anchor, String resource) {
        String source = INCLUDE.matcher(read(anchor, resource)).replaceAll(
                include -> Matcher.quoteReplacement(read(LuaScript.class, FENCING).strip()));
        return new LuaScript(resource, source, sha1(source));
    }

    private static String read(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script resource " + resource + " not found beside " + anchor.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + resource, e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return name + "@" + sha.substring(0, 8);
    }
}
