package io.coordis.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script loaded from a {@code .lua} resource beside the class that runs it, with the SHA-1 that
 * {@code EVALSHA} uses. Immutable and thread-safe.
 */
public final class LuaScript {
    private final String name;
    private final String source;
    private final String sha;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha = sha1(source);
    }

    /** Loads {@code resource} relative to {@code anchor}'s package; fails fast when it is missing. */
    public static LuaScript load(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script resource " + resource + " not found beside " + anchor.getName());
            }
            return new LuaScript(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + resource, e);
        }
    }

    public String name() {
        return name;
    }

    public String source() {
        return source;
    }

    /** Lower-case hex SHA-1 of the source, as {@code SCRIPT LOAD} returns it. */
    public String sha() {
        return sha;
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
