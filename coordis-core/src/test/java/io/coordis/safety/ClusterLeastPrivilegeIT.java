package io.coordis.safety;

import io.coordis.AccessDeniedException;
import io.coordis.Coordis;
import io.coordis.NodeUnavailableException;
import io.coordis.RequiredCommands;
import io.coordis.lock.DistributedLock;
import io.coordis.internal.lock.LockLayout;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.Queue;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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

    /**
     * A waiter listens for the release on the cluster's pub/sub connection, which Lettuce opens with
     * {@code CLUSTER MYID}: as the required user it subscribes and sends no further tries while the holder keeps the
     * lock; without {@code cluster|myid} the cluster denies that (its ACL log names it).
     */
    @Test
    void aWaiterListensForTheReleaseAsTheRequiredUserWhichNeedsClusterMyid() throws Exception {
        String name = "app:waited";
        RedisServer master = cluster.masterOf(RedisCluster.slot(name));
        String channel = LockLayout.releasedChannel(name);
        setUser();
        try (Coordis holder = connect(); Coordis waiter = connect()) {
            Lease held = holder.lock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(60))).tryAcquire()
                    .orElseThrow();
            CompletableFuture<Optional<Lease>> waiting = waiter.lock(name).acquireAsync(Duration.ofSeconds(60));
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(channel) > 0);
            long triesBefore = calls(master, "evalsha");
            Thread.sleep(1000); // a window in which a waiter that polls would try again and again
            assertThat(calls(master, "evalsha") - triesBefore).as("tries while the holder keeps the lock")
                    .isLessThanOrEqualTo(2);
            assertThat(waiting).isNotDone();
            held.release();
            waiting.get(20, TimeUnit.SECONDS).orElseThrow().release();
        }
        for (RedisServer s : cluster.masters()) {
            assertThat(aclLog(s)).as("nothing denied on %s", s).doesNotContain("cluster|myid");
        }

        setUser("cluster|myid");
        try (Coordis holder = connect(); Coordis waiter = connect()) {
            Lease held = holder.lock(name).tryAcquire().orElseThrow();
            try {
                waiter.lock(name).acquire(Duration.ofSeconds(1)); // busy: the waiter opens its pub/sub connection
            } catch (RuntimeException e) {
                // how the client fails without it does not matter here; that the cluster asked for it does
            }
            held.release();
        }
        // Redis 7 logs the subcommand (cluster|myid); Redis 6.2 only the command, and every other CLUSTER
        // subcommand the client sends (NODES) is granted
        assertThat(cluster.masters().stream().map(ClusterLeastPrivilegeIT::aclLog))
                .as("what the cluster denied without it")
                .anyMatch(log -> log.contains("cluster|myid") || log.contains("object, cluster,"));
    }

    /** How many clients subscribe to {@code channel}, over every master (the pub/sub connection is on one). */
    private static long subscribers(String channel) {
        long n = 0;
        for (RedisServer s : cluster.masters()) {
            List<?> reply = (List<?>) s.command("PUBSUB", "NUMSUB", channel);
            n += ((Number) reply.get(1)).longValue();
        }
        return n;
    }

    private static long calls(RedisServer s, String command) {
        String line = s.info("commandstats").getOrDefault("cmdstat_" + command, "calls=0,");
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
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
