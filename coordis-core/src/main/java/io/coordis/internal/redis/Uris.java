package io.coordis.internal.redis;

import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.regex.Pattern;

/** Parses Redis URLs and renders them without credentials. */
public final class Uris {
    /** {@code user:password@} after a scheme, or at the start of a URL written without one. */
    private static final Pattern USER_INFO = Pattern.compile("(^|://|\\s)[^@/\\s]*@");

    private Uris() {
    }

    /** The URL with any {@code user:password@} part replaced by {@code ***@}. */
    public static String redact(String text) {
        return text == null ? null : USER_INFO.matcher(text).replaceAll("$1***@");
    }

    /**
     * Parses {@code redis://}, {@code rediss://} (TLS), {@code redis-sentinel://} and {@code redis-socket://}
     * URLs with optional {@code user:password@} and database number ({@code /2}).
     *
     * @throws IllegalArgumentException naming what is wrong (the password is never repeated)
     */
    static RedisURI parse(String uri, Duration timeout) {
        if (uri == null || uri.isBlank()) {
            throw new IllegalArgumentException("Redis URL must not be blank; use e.g. redis://127.0.0.1:6379");
        }
        String u = uri.strip();
        if (!u.contains("://")) {
            throw new IllegalArgumentException("not a Redis URL: '" + redact(u)
                    + "'; use redis://host:port, rediss://host:port (TLS) or redis-sentinel://host:port#master");
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(u);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a Redis URL: '" + redact(u) + "' (" + redact(e.getMessage())
                    + "); use redis://[user:password@]host:port[/db]", null);
        }
        parsed.setTimeout(timeout);
        return parsed;
    }

    /** {@code host:port} (or the sentinel master id and sentinels) for messages; never credentials. */
    static String address(RedisURI uri) {
        if (uri.getSentinels() != null && !uri.getSentinels().isEmpty()) {
            StringBuilder sb = new StringBuilder("sentinel master '").append(uri.getSentinelMasterId()).append("' via ");
            for (int i = 0; i < uri.getSentinels().size(); i++) {
                RedisURI s = uri.getSentinels().get(i);
                sb.append(i == 0 ? "" : ",").append(s.getHost()).append(':').append(s.getPort());
            }
            return sb.toString();
        }
        if (uri.getSocket() != null) {
            return uri.getSocket();
        }
        return uri.getHost() + ":" + uri.getPort();
    }
}
