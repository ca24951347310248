package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.testkit.RedisCluster;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;

import java.util.List;

/**
 * A quick, uncontended acquire+release loop on a 3-master Redis Cluster, with lock names on all three masters
 * in turn: Coordis against the same cycle in raw Lettuce cluster commands (SET NX PX, then the
 * compare-and-delete script), interleaved in one run. Not a benchmark suite: a first ratio. Run with
 * {@code coordis-bench/run quick QuickClusterLockLoop [ops] [rounds]}.
 */
public final class QuickClusterLockLoop {
    /** The same, plus the release notification Coordis publishes (a cluster broadcasts it to every node). */
    private static final String DELETE_AND_PUBLISH =
            "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('publish', KEYS[1], 'released'); "
                    + "return redis.call('del', KEYS[1]) else return 0 end";

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (RedisCluster cluster = RedisCluster.start();
             Coordis coordis = Coordis.connect(cluster.uri())) {
            List<String> keys = cluster.keysOnEveryMaster("quick:"); // lock names are the keys: no prefix
            RedisClusterClient client = RedisClusterClient.create(
                    cluster.seeds().stream().map(s -> RedisURI.create("redis://" + s)).toList());
            try (StatefulRedisClusterConnection<String, String> conn = client.connect()) {
                RedisAdvancedClusterCommands<String, String> raw = conn.sync();
                String sha = null;
                String publishingSha = null;
                for (String k : keys) {
                    var node = raw.getConnection(cluster.masterForKey(k).host(), cluster.masterForKey(k).port());
                    sha = node.scriptLoad(RawLock.DELETE_IF_OURS);
                    publishingSha = node.scriptLoad(DELETE_AND_PUBLISH);
                }
                String deleteSha = sha;
                String deleteAndPublishSha = publishingSha;
                List<DistributedLock> locks = keys.stream().map(coordis::lock).toList();
                int[] turn = new int[1];
                Runnable coordisCycle = () -> locks.get(turn[0]++ % locks.size()).tryAcquire().orElseThrow().close();
                Runnable rawCycle = RawLock.cycle(raw, deleteSha, () -> keys.get(turn[0]++ % keys.size()) + ":raw");
                Runnable publishingCycle = RawLock.cycle(raw, deleteAndPublishSha,
                        () -> keys.get(turn[0]++ % keys.size()) + ":pub");
                Interleaved.rate(coordisCycle, ops / 4);
                Interleaved.rate(publishingCycle, ops / 4);
                Interleaved.rate(rawCycle, ops / 4);
                System.out.printf("redis cluster of %d masters (%s), %d ops per round, %d rounds, interleaved%n",
                        cluster.masters().size(), cluster.masters().get(0).version(), ops, rounds);
                double[] ratios = new double[rounds];
                for (int r = 0; r < rounds; r++) {
                    double[] rates = Interleaved.round(r, ops, coordisCycle, rawCycle);
                    double c = rates[0];
                    ratios[r] = c / rates[1];
                    double p = Interleaved.rate(publishingCycle, ops);
                    System.out.printf("round %d: coordis %.0f ops/s, raw lettuce %.0f ops/s, ratio %.2f; raw lettuce with the "
                            + "release PUBLISH %.0f ops/s, coordis / that %.2f%n", r + 1, c, rates[1], ratios[r], p, c / p);
                }
                System.out.printf("median ratio coordis / raw lettuce: %s%n", Interleaved.spread(ratios));
            } finally {
                client.shutdown();
            }
        }
    }
}
