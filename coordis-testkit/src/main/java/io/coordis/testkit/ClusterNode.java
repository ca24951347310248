package io.coordis.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One line of {@code CLUSTER NODES}: id, flags, master id ("-" for a master) and slot ranges; and the readers of a
 * node's {@code CLUSTER NODES} and {@code CLUSTER INFO} that {@link RedisCluster} asks. Immutable.
 */
record ClusterNode(String id, List<String> flags, String masterId, List<int[]> slots) {

    static ClusterNode parse(String text) {
        String[] f = text.split(" ");
        List<int[]> ranges = new ArrayList<>();
        for (int i = 8; i < f.length; i++) {
            if (f[i].startsWith("[")) {
                continue; // a slot being migrated or imported
            }
            int dash = f[i].indexOf('-');
            int from = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(f[i].substring(dash + 1));
            ranges.add(new int[] {from, to});
        }
        return new ClusterNode(f[0], List.of(f[2].split(",")), f[3], ranges);
    }

    boolean master() {
        return flags.contains("master");
    }

    boolean owns(int slot) {
        return slots.stream().anyMatch(r -> r[0] <= slot && slot <= r[1]);
    }

    /** The line {@code s} lists for itself. */
    static ClusterNode self(RedisServer s) {
        for (ClusterNode l : nodes(s)) {
            if (l.flags.contains("myself")) {
                return l;
            }
        }
        throw new IllegalStateException(s + " does not list itself in CLUSTER NODES");
    }

    /** The line {@code s} lists for the node {@code id}, or {@code null}. */
    static ClusterNode line(RedisServer s, String id) {
        return nodes(s).stream().filter(l -> l.id.equals(id)).findFirst().orElse(null);
    }

    /** Every line of {@code s}'s {@code CLUSTER NODES}. */
    static List<ClusterNode> nodes(RedisServer s) {
        List<ClusterNode> out = new ArrayList<>();
        for (String text : String.valueOf(s.command("CLUSTER", "NODES")).split("\n")) {
            if (!text.isBlank()) {
                out.add(parse(text.strip()));
            }
        }
        return out;
    }

    /** True if {@code s} reports {@code cluster_state:ok}. */
    static boolean clusterOk(RedisServer s) {
        return "ok".equals(clusterInfo(s).get("cluster_state"));
    }

    /** {@code s}'s {@code CLUSTER INFO}, parsed. */
    static Map<String, String> clusterInfo(RedisServer s) {
        return RedisServer.parseInfo(s.command("CLUSTER", "INFO"));
    }
}
