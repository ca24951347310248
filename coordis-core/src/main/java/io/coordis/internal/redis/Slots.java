package io.coordis.internal.redis;

import io.lettuce.core.cluster.SlotHash;

/** Redis Cluster hash slots of keys, for code that groups keys by slot before it sends them. Stateless. */
public final class Slots {
    private Slots() {
    }

    /**
     * The hash slot of {@code key} (0 to 16383): of its {@code {hash tag}} when it has one, else of the whole key.
     *
     * @param key a Redis key
     * @return its slot
     */
    public static int of(String key) {
        return SlotHash.getSlot(key);
    }

    /**
     * Whether {@code node} is a Redis Cluster, whose keys lie in several slots on several masters.
     *
     * @param node a node
     * @return {@code true} for a cluster
     */
    public static boolean isCluster(Node node) {
        return node instanceof RedisNode r && r.isCluster();
    }
}
