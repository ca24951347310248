package io.coordis.testkit.fault;

import io.coordis.testkit.RedisServer;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A master's replication stream held back from its replicas while the master keeps serving its clients: a lagging
 * or cut-off replica, as a network fault makes it. A host-wide nftables table drops every packet the master sends
 * on each replica's connection (found with {@code CLIENT LIST TYPE replica}); the replicas' acknowledgements still
 * reach the master, so {@code WAIT} counts only what they really have. Whatever the master accepts meanwhile is
 * lost if a replica is promoted before {@link #close()} (a {@code CLUSTER FAILOVER FORCE} or {@code TAKEOVER} closes
 * the promoted replica's link, so the held-back stream never reaches it); otherwise TCP delivers it after the close.
 * Needs root and {@code nft}, as {@link NetworkNamespace} does.
 */
public final class ReplicationCut implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final String PREFIX = "coordis_replcut_";
    private static final Pattern REPLICA_ADDR = Pattern.compile("(?<![a-z])addr=[^ ]*:(\\d+) ");
    private static final Pattern OURS = Pattern.compile(PREFIX + "(\\d+)_\\d+");

    private final String table;
    private final List<Integer> replicaPorts;
    private boolean closed;

    private ReplicationCut(String table, List<Integer> replicaPorts) {
        this.table = table;
        this.replicaPorts = replicaPorts;
    }

    /**
     * Holds back {@code master}'s stream to every replica connected to it now.
     *
     * @param master the master whose replication to hold back
     * @return the cut, in force; close it to heal
     * @throws IllegalStateException when it has no replica connected, or a rule cannot be installed (then none is)
     */
    public static ReplicationCut of(RedisServer master) {
        String reason = NetworkNamespace.unavailableReason();
        if (reason != null) {
            throw new IllegalStateException("cannot hold back replication: " + reason);
        }
        List<Integer> ports = new ArrayList<>();
        Matcher m = REPLICA_ADDR.matcher(String.valueOf(master.command("CLIENT", "LIST", "TYPE", "replica")));
        while (m.find()) {
            ports.add(Integer.parseInt(m.group(1)));
        }
        if (ports.isEmpty()) {
            throw new IllegalStateException(master.address() + " has no replica connected to hold back");
        }
        deleteLeftovers();
        String table = PREFIX + ProcessHandle.current().pid() + "_" + COUNTER.incrementAndGet();
        try {
            NetworkNamespace.run("nft", "add", "table", "inet", table);
            NetworkNamespace.run("nft", "add", "chain", "inet", table, "out",
                    "{ type filter hook output priority 0 ; policy accept ; }");
            for (int port : ports) {
                NetworkNamespace.run("nft", "add", "rule", "inet", table, "out", "tcp", "sport",
                        Integer.toString(master.port()), "tcp", "dport", Integer.toString(port), "drop");
            }
        } catch (RuntimeException e) {
            NetworkNamespace.runQuietly("nft", "delete", "table", "inet", table);
            throw e;
        }
        return new ReplicationCut(table, List.copyOf(ports));
    }

    /**
     * The local ports of the replica connections held back.
     *
     * @return the ports
     */
    public List<Integer> replicaPorts() {
        return replicaPorts;
    }

    /** Lets the stream through again. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            NetworkNamespace.run("nft", "delete", "table", "inet", table);
        }
    }

    @Override
    public String toString() {
        return "replication held back on " + replicaPorts + " (nft table " + table + ")";
    }

    /** Deletes the tables that JVMs no longer running left behind (killed before they closed their cuts). */
    private static void deleteLeftovers() {
        String tables;
        try {
            tables = NetworkNamespace.run("nft", "list", "tables");
        } catch (RuntimeException e) {
            return;
        }
        Matcher m = OURS.matcher(tables);
        while (m.find()) {
            if (!NetworkNamespace.running(Long.parseLong(m.group(1)))) {
                NetworkNamespace.runQuietly("nft", "delete", "table", "inet", m.group());
            }
        }
    }
}
