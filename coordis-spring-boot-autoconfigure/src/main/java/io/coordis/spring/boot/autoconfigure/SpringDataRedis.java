package io.coordis.spring.boot.autoconfigure;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The Redis an application already talks to through Spring Data Redis ({@code spring.data.redis.*}, or a
 * connection-details bean from Docker Compose or Testcontainers), written as the URL Coordis connects to.
 */
final class SpringDataRedis {
    static final String SOURCE = "spring.data.redis";

    private final DataRedisConnectionDetails details;

    SpringDataRedis(DataRedisConnectionDetails details) {
        this.details = details;
    }

    /** One URL for a standalone server, a Sentinel-managed master or a cluster, as the details describe it. */
    RedisUrls urls() {
        boolean tls = details.getSslBundle() != null;
        String auth = userInfo(details.getUsername(), details.getPassword());
        if (details.getSentinel() != null) {
            DataRedisConnectionDetails.Sentinel s = details.getSentinel();
            return one((tls ? "rediss-sentinel://" : "redis-sentinel://") + auth + hosts(s.getNodes()) + "/"
                    + s.getDatabase() + "#" + s.getMaster(), ".sentinel");
        }
        if (details.getCluster() != null) {
            return one((tls ? "rediss-cluster://" : "redis-cluster://") + auth + hosts(details.getCluster().getNodes()),
                    ".cluster");
        }
        if (details.getMasterReplica() != null) {
            throw new ConfigurationProblem("spring.data.redis.masterreplica describes a static master/replica set, "
                    + "which Coordis does not read",
                    "Set coordis.urls to the master (coordis.urls=redis://master:6379) and coordis.replica-urls to its "
                            + "replicas.");
        }
        DataRedisConnectionDetails.Standalone s = details.getStandalone();
        return one((tls ? "rediss://" : "redis://") + auth + host(s.getHost(), s.getPort()) + "/" + s.getDatabase(), "");
    }

    private static RedisUrls one(String url, String part) {
        return new RedisUrls(List.of(url), SOURCE + part);
    }

    private static String hosts(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(n -> host(n.host(), n.port())).collect(Collectors.joining(","));
    }

    private static String host(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    private static String userInfo(String user, String password) {
        if (password == null || password.isEmpty()) {
            return "";
        }
        return (user == null || user.isEmpty() ? "" : encode(user)) + ":" + encode(password) + "@";
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
