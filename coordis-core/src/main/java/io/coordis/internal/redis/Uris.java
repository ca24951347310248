package io.coordis.internal.redis;

import io.coordis.Urls;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StaticCredentialsProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Parses Redis URLs and renders them without credentials. */
public final class Uris {
    private static final String CLUSTER_SCHEME = "redis-cluster://";
    private static final String TLS_CLUSTER_SCHEME = "rediss-cluster://";

    private Uris() {
    }

    /** The URL with any {@code user:password@} part replaced by {@code ***@}. */
    public static String redact(String text) {
        return Urls.redact(text);
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
                    + "'; use redis://host:port, rediss://host:port (TLS), redis-sentinel://host:port#master "
                    + "or redis-cluster://host:port[,host:port...]");
        }
        RedisURI parsed;
        try {
            parsed = RedisURI.create(u);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a Redis URL: '" + redact(u) + "' (" + redact(e.getMessage())
                    + "); use redis://[user:password@]host:port[/db]", null);
        }
        parsed.setTimeout(timeout);
        settle(parsed);
        parsed.getSentinels().forEach(Uris::settle);
        return parsed;
    }

    /**
     * Gives {@code uri} its credentials as they are, where Lettuce's parser leaves a supplier of them: with a
     * supplier, Lettuce sends the handshake from another thread than the connection's, and on a loaded machine a
     * refused password then more often reaches the caller only as a closed connection.
     */
    private static void settle(RedisURI uri) {
        RedisCredentials credentials = uri.getCredentialsProvider().resolveCredentials().block();
        uri.setCredentialsProvider(new StaticCredentialsProvider(credentials));
    }

    /** Whether {@code uri} names a Redis Cluster ({@code redis-cluster://} or {@code rediss-cluster://}). */
    public static boolean isCluster(String uri) {
        if (uri == null) {
            return false;
        }
        String u = uri.strip().toLowerCase(Locale.ROOT);
        return u.startsWith(CLUSTER_SCHEME) || u.startsWith(TLS_CLUSTER_SCHEME);
    }

    /**
     * Parses {@code redis-cluster://[user:password@]host:port[,host:port...][?options]} (or
     * {@code rediss-cluster://} for TLS) into one URI per seed node, each with the credentials and options.
     *
     * @throws IllegalArgumentException naming what is wrong (the password is never repeated)
     */
    static List<RedisURI> parseCluster(String uri, Duration timeout) {
        String u = uri.strip();
        boolean tls = u.toLowerCase(Locale.ROOT).startsWith(TLS_CLUSTER_SCHEME);
        String rest = u.substring(tls ? TLS_CLUSTER_SCHEME.length() : CLUSTER_SCHEME.length());
        String query = "";
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q);
            rest = rest.substring(0, q);
        }
        int at = rest.lastIndexOf('@');
        String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
        String hosts = at >= 0 ? rest.substring(at + 1) : rest;
        int slash = hosts.indexOf('/');
        if (slash >= 0) {
            String db = hosts.substring(slash + 1);
            if (!db.isEmpty() && !db.equals("0")) {
                throw new IllegalArgumentException("Redis Cluster has only database 0, but '" + redact(u)
                        + "' asks for database " + db + "; remove /" + db + " from the URL");
            }
            hosts = hosts.substring(0, slash);
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : hosts.split(",")) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("not a Redis Cluster URL: '" + redact(u)
                        + "' has an empty seed; use redis-cluster://host:port[,host:port...]");
            }
            if (!host.strip().matches(".*:\\d+")) {
                throw new IllegalArgumentException("not a Redis Cluster URL: seed '" + host.strip() + "' of '" + redact(u)
                        + "' has no port; use redis-cluster://host:port[,host:port...]");
            }
            seeds.add(parse((tls ? "rediss://" : "redis://") + userInfo + host.strip() + query, timeout));
        }
        return seeds;
    }

    /** {@code cluster via host:port,...} for messages; never credentials. */
    static String clusterAddress(List<RedisURI> seeds) {
        StringBuilder sb = new StringBuilder("cluster via ");
        for (int i = 0; i < seeds.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(seeds.get(i).getHost()).append(':').append(seeds.get(i).getPort());
        }
        return sb.toString();
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
