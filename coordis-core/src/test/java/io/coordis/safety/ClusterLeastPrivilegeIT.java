package io.coordis.safety;

import io.coordis.AccessDeniedException;
import io.coordis.Coordis;
import io.coordis.NodeUnavailableException;
import io.coordis.RequiredCommands;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.Queue;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * On Redis Cluster, a user limited to a key prefix and exactly the commands of
 * {@link RequiredCommands#clusterUses()} runs the primitives; {@code asking} is needed once a slot migrates: a
 * client sent to the importing node by an ASK redirect must say ASKING first, and without that command the
 * operation fails with a typed error that names ASKING as the thing to check.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterLeastPrivilegeIT {
    private static final String PASSWORD = "app-Secret-1";

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.builder().masters(3).start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void clean() {
        cluster.flushAll();
    }

    /** (Re)creates the user {@code app} on every master, with the cluster uses' commands minus {@code without}. */
    private static void setUser(String... without) {
        for (RedisServer s : cluster.masters()) {
            s.command("ACL", "DELUSER", "app");
            s.command("ACL", "LOG", "RESET");
            List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", "app", "on", ">" + PASSWORD, "resetkeys",
                    "resetchannels"));
            args.addAll(RequiredCommands.keyPatterns("app:"));
            args.add("-@all");
            for (String command : RequiredCommands.names(RequiredCommands.clusterUses())) {
                if (!List.of(without).contains(command)) {
                    args.add("+" + command);
                }
            }
            s.command(args.toArray(String[]::new));
        }
    }

    private static Coordis connect() {
        return Coordis.connect("redis-cluster://app:" + PASSWORD + "@" + String.join(",", cluster.seeds()));
    }

    private static String aclLog(RedisServer s) {
        return String.valueOf(s.command("ACL", "LOG", "10"));
    }

    @Test
    void locksAndQueuesWorkOnAClusterAsTheRequiredUser() throws Exception {
        setUser();
        try (Coordis c = connect()) {
            DistributedLock lock = c.lock("app:lock");
            Lease lease = lock.tryAcquire().orElseThrow();
            assertThat(lease.fencingToken()).isPositive();
            assertThat(lock.tryAcquire()).as("held").isEmpty();
            assertThat(lease.release()).isTrue();

            ReliableQueue q = c.reliableQueue("app:jobs");
            q.push("one");
            try (Consumer consumer = q.consumer()) {
                Delivery d = consumer.take(Duration.ofSeconds(5)).orElseThrow();
                assertThat(d.text()).isEqualTo("one");
                assertThat(d.ack()).isEqualTo(Outcome.ACKED);
            }
            assertThat(q.stats().depth()).isZero();

            Throwable outside = catchThrowable(() -> c.lock("other:lock").tryAcquire());
            assertThat(outside).isInstanceOf(AccessDeniedException.class);
        }
    }

    @Test
    void aSlotMidMigrationIsFollowedWithAskingWhichTheUserNeeds() throws Exception {
        String name = "app:migrating";
        int slot = RedisCluster.slot(name);
        RedisServer source = cluster.masterOf(slot);
        RedisServer target = cluster.masters().stream().filter(s -> s != source).findFirst().orElseThrow();
        // the slot moves from source to target; its keys (none yet) are still served by source, new ones are
        // asked for on target: source answers -ASK for a key it does not hold
        target.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", cluster.nodeId(source));
        source.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", cluster.nodeId(target));
        try {
            setUser();
            long askingBefore = askingCalls(target);
            try (Coordis c = connect()) {
                Queue q = c.queue(name);
                q.push("first");
                assertThat(askingCalls(target)).as("the push followed an ASK redirect to %s", target)
                        .isGreaterThan(askingBefore);
                assertThat(target.commandsOnOneConnection(new String[] {"ASKING"}, new String[] {"LLEN", name}))
                        .as("written on the importing node").containsExactly("OK", 1L);
                assertThat(q.pop()).map(b -> new String(b, StandardCharsets.UTF_8)).contains("first");
            }

            setUser("asking");
            try (Coordis c = connect()) {
                Throwable denied = catchThrowable(() -> c.queue(name).push("second"));
                assertThat(aclLog(target)).as("what the importing node denied").contains("asking");
                // Lettuce ignores the ASKING reply, so the command bounces between the nodes (MOVED, ASK) until its
                // redirections run out: the error says so and names the command to check
                assertThat(denied).as("push without asking").isInstanceOf(NodeUnavailableException.class)
                        .hasMessageContaining("moving a slot").hasMessageContaining("ASKING");
                assertThat(target.commandsOnOneConnection(new String[] {"ASKING"}, new String[] {"LLEN", name}))
                        .as("nothing more written").containsExactly("OK", 0L);
            }
        } finally {
            for (RedisServer s : List.of(source, target)) {
                s.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", cluster.nodeId(source));
            }
        }
    }

    private static long askingCalls(RedisServer s) {
        String line = s.info("commandstats").getOrDefault("cmdstat_asking", "calls=0,");
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
    }
}
