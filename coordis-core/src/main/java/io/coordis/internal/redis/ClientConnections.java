package io.coordis.internal.redis;

import io.coordis.internal.Timer;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The connections of one client: its node (or Redlock's independent masters), the replicas its signals also listen
 * on, and the event loops they share. Closed once, by the client.
 */
public final class ClientConnections implements AutoCloseable {
    private final RedisResources resources;
    private final List<RedisNode> nodes;
    private final List<RedisNode> replicas;

    private ClientConnections(RedisResources resources, List<RedisNode> nodes, List<RedisNode> replicas) {
        this.resources = resources;
        this.nodes = nodes;
        this.replicas = replicas;
    }

    /**
     * Connects to one node, waiting for it, or opens N ≥ 3 masters for Redlock in the background, giving them up
     * to {@code timeout} to come up (a minority may stay down); replicas open in the background. With
     * {@code given} resources (may be {@code null}: the client's own) the connections run on them, which closing
     * does not shut down.
     *
     * @throws IllegalArgumentException for no URL, 2 URLs, a cluster among several URLs or with replicas, a
     *                                  malformed URL or unusable TLS files
     * @throws io.coordis.CoordisException when the single node is down or refuses the credentials
     */
    public static ClientConnections open(List<String> urls, List<String> replicaUrls, Duration timeout,
                                         TlsSettings tls, Timer timer, ClientResources given) {
        checkUrls(urls, replicaUrls);
        RedisResources resources = given == null ? new RedisResources() : new RedisResources(given);
        List<RedisNode> opened = new ArrayList<>();
        try {
            if (urls.size() == 1) {
                opened.add(RedisNode.connect(urls.get(0), timeout, tls, resources, timer));
            } else {
                for (String url : urls) {
                    opened.add(RedisNode.open(url, timeout, tls, resources, timer));
                }
                awaitSettled(opened, timeout);
            }
            int masters = opened.size();
            for (String url : replicaUrls) {
                opened.add(RedisNode.open(url, timeout, tls, resources, timer));
            }
            return new ClientConnections(resources, List.copyOf(opened.subList(0, masters)),
                    List.copyOf(opened.subList(masters, opened.size())));
        } catch (RuntimeException e) {
            opened.forEach(RedisNode::close);
            resources.close();
            throw e;
        }
    }

    private static void checkUrls(List<String> urls, List<String> replicaUrls) {
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("a Redis URL is required, e.g. redis://127.0.0.1:6379");
        }
        if (urls.size() == 2) {
            throw new IllegalArgumentException("2 Redis URLs given: give one, or at least 3 independent masters "
                    + "for Redlock (5 is typical)");
        }
        for (String url : urls) {
            if (Uris.isCluster(url) && urls.size() > 1) {
                throw new IllegalArgumentException(urls.size() + " Redis URLs given, one of them a Redis Cluster ("
                        + Uris.redact(url) + "): Redlock needs independent masters, and a cluster is one deployment; "
                        + "give the cluster URL alone (redis-cluster://host:port,host:port...)");
            }
        }
        if (urls.size() == 1 && Uris.isCluster(urls.get(0)) && !replicaUrls.isEmpty()) {
            throw new IllegalArgumentException("replica URLs cannot be combined with a Redis Cluster URL: "
                    + "the cluster's own pub/sub already reaches subscribers on replicas; remove the replica URLs");
        }
    }

    /**
     * Gives background connections up to {@code timeout} to open, so the first Redlock vote does not
     * spend its short per-node timeout on a handshake; nodes that are down stay down without an error.
     */
    private static void awaitSettled(List<RedisNode> nodes, Duration timeout) {
        try {
            CompletableFuture.allOf(nodes.stream().map(RedisNode::settled).toArray(CompletableFuture[]::new))
                    .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // some nodes are slow or down: Redlock works with a majority, and their votes say so
        }
    }

    /** The node, or Redlock's masters (at least 3). */
    public List<RedisNode> nodes() {
        return nodes;
    }

    /** The replicas of the (first) node that signals also listen on; may be empty. */
    public List<RedisNode> replicas() {
        return replicas;
    }

    @Override
    public void close() {
        nodes.forEach(RedisNode::close);
        replicas.forEach(RedisNode::close);
        resources.close();
    }
}
