package io.coordis.internal.redis;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Publishing to one subscriber of a Redis Cluster: {@code PUBSUB CHANNELS} only sees the node it runs on, so
 * the channels are listed on every node and one is picked. (On one server a script does the same atomically.)
 */
final class ClusterPublish {
    private ClusterPublish() {
    }

    /**
     * Lists the channels matching {@code pattern} that have subscribers on each reachable node (masters and
     * replicas), picks number {@code pick} modulo their count in a stable order, and publishes {@code message}
     * to it on the node where it was found, answering that node's receiver count (0 when no channel matched, or
     * when the chosen subscriber left in between). Nodes that do not answer within the command timeout are
     * skipped: their subscribers are not candidates. Does not block.
     */
    static CompletableFuture<Long> toOne(Connection<String, String> connection, Connector connector, String address,
                                         String pattern, long pick, String message) {
        List<RedisClusterNode> nodes;
        try {
            nodes = connector.clusterNodes().stream()
                    .filter(n -> !n.is(RedisClusterNode.NodeFlag.FAIL) && !n.is(RedisClusterNode.NodeFlag.NOADDR))
                    .sorted(Comparator.comparing(RedisClusterNode::getNodeId))
                    .toList();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(RedisErrors.translate(e, address));
        }
        List<CompletableFuture<List<String>>> listed = new ArrayList<>();
        for (RedisClusterNode n : nodes) {
            listed.add(connection.<List<String>>send(n.getUri(), c -> c.pubsubChannels(pattern))
                    .exceptionally(f -> List.of()));
        }
        return CompletableFuture.allOf(listed.toArray(CompletableFuture[]::new)).thenCompose(done -> {
            List<Candidate> candidates = new ArrayList<>();
            for (int i = 0; i < nodes.size(); i++) {
                List<String> channels = new ArrayList<>(listed.get(i).join());
                Collections.sort(channels);
                for (String channel : channels) {
                    candidates.add(new Candidate(nodes.get(i), channel));
                }
            }
            if (candidates.isEmpty()) {
                return CompletableFuture.completedFuture(0L);
            }
            Candidate chosen = candidates.get((int) Math.floorMod(pick, (long) candidates.size()));
            return connection.send(chosen.node.getUri(), c -> c.publish(chosen.channel, message));
        });
    }

    private record Candidate(RedisClusterNode node, String channel) {
    }
}
