package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * How {@link RedisCluster.Builder#start()} forms a cluster: servers started in parallel, slots assigned, every node
 * introduced to every other, replicas attached, then waited on until the cluster settles; and how a failover is
 * waited on until the cluster settles again. Stateless.
 */
final class ClusterFormation {
    private static final int ADDSLOTS_CHUNK = 1024;

    private ClusterFormation() {
    }

    /**
     * Starts {@code masters * (1 + replicasPerMaster)} servers of {@code node} (cluster mode already configured) and
     * forms them into a cluster, within {@link RedisCluster#SETTLE_TIMEOUT}.
     *
     * @throws IllegalStateException when a server does not start or the cluster does not settle (every server
     *                               started is closed)
     */
    static RedisCluster form(RedisServerBuilder node, int masters, int replicasPerMaster) {
        int total = masters * (1 + replicasPerMaster);
        List<RedisServer> all = Processes.startAll(total, node::start, "coordis-cluster-start", RedisServer::close);
        List<RedisServer> m = new ArrayList<>(all.subList(0, masters));
        List<RedisServer> r = new ArrayList<>(all.subList(masters, total));
        try {
            Map<RedisServer, String> ids = new LinkedHashMap<>();
            for (RedisServer s : all) {
                ids.put(s, String.valueOf(s.command("CLUSTER", "MYID")));
            }
            for (int i = 0; i < masters; i++) {
                int from = (int) ((long) RedisCluster.SLOTS * i / masters);
                int to = (int) ((long) RedisCluster.SLOTS * (i + 1) / masters);
                addSlots(m.get(i), from, to);
                m.get(i).command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            }
            // every node meets every other at once: no waiting for gossip to spread the news
            for (int i = 0; i < total; i++) {
                for (int j = i + 1; j < total; j++) {
                    all.get(i).command("CLUSTER", "MEET", all.get(j).host(), Integer.toString(all.get(j).port()));
                }
            }
            RedisCluster cluster = new RedisCluster(m, r, ids);
            long deadline = System.nanoTime() + RedisCluster.SETTLE_TIMEOUT.toNanos();
            // known by id, not only counted: a node still in the MEET handshake is listed under a random id
            await(deadline, "every node to know all " + total + " nodes by id", () -> cluster.everyRunningNode(
                    s -> ClusterNode.nodes(s).stream().map(ClusterNode::id).collect(Collectors.toSet())
                            .containsAll(ids.values())));
            for (int i = 0; i < r.size(); i++) {
                RedisServer replica = r.get(i);
                replica.command("CLUSTER", "REPLICATE", ids.get(m.get(i / replicasPerMaster)));
            }
            await(deadline, "every replica to sync", () -> r.stream()
                    .allMatch(s -> "up".equals(s.info("replication").get("master_link_status"))));
            await(deadline, "cluster_state:ok on every node with all replicas known", () -> cluster.everyRunningNode(
                    s -> ClusterNode.clusterOk(s) && ClusterNode.nodes(s).stream().filter(l -> !l.master()).count() == r.size()));
            return cluster;
        } catch (RuntimeException e) {
            Processes.closeAll(all);
            throw e;
        }
    }

    /**
     * Sends {@code command} (a {@code CLUSTER FAILOVER}) to {@code replica} and blocks until every running node sees
     * it as the master of its slots and reports {@code cluster_state:ok}, at most {@link RedisCluster#SETTLE_TIMEOUT}.
     */
    static void promote(RedisCluster cluster, RedisServer replica, String... command) {
        ClusterNode before = ClusterNode.self(replica);
        if (before.master()) {
            throw new IllegalArgumentException(replica + " is already a master");
        }
        replica.command(command);
        String id = cluster.nodeId(replica);
        long deadline = System.nanoTime() + RedisCluster.SETTLE_TIMEOUT.toNanos();
        while (true) {
            if (ClusterNode.self(replica).master() && cluster.everyRunningNode(s -> {
                ClusterNode seen = ClusterNode.line(s, id);
                return seen != null && seen.master() && !seen.slots().isEmpty() && ClusterNode.clusterOk(s);
            })) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("failover of " + replica + " did not settle within "
                        + RedisCluster.SETTLE_TIMEOUT + "; its view: " + replica.command("CLUSTER", "NODES"));
            }
            ProcessSupport.sleep(Duration.ofMillis(50));
        }
    }

    private static void addSlots(RedisServer master, int from, int to) {
        for (int start = from; start < to; start += ADDSLOTS_CHUNK) {
            int end = Math.min(to, start + ADDSLOTS_CHUNK);
            List<String> args = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = start; slot < end; slot++) {
                args.add(Integer.toString(slot));
            }
            master.command(args.toArray(String[]::new));
        }
    }

    private static void await(long deadline, String what, BooleanSupplier done) {
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster did not settle: timed out waiting for " + what);
            }
            ProcessSupport.sleep(Duration.ofMillis(25));
        }
    }
}
