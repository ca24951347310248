package io.coordis;

import io.coordis.lock.Lease;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Signal;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A master of a 3-master cluster (one replica each, {@code appendfsync always}) is killed with SIGKILL while a
 * client holds a lock, messages in flight and a blocking take on its slot; its replica is promoted. Cluster
 * replication is asynchronous, so the test waits until the replica has every write before the kill: what it
 * proves is that the client finds the new master by itself and loses nothing the replica had.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterFailoverIT {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.builder().masters(3).replicasPerMaster(1)
                .template(RedisServer.builder().appendOnly(true).appendFsync("always")).start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theClientCarriesOnAfterTheMasterOfAQueuesSlotIsKilledAndItsReplicaPromoted() throws Exception {
        QueueOptions options = QueueOptions.defaults().withHeartbeatTtl(Duration.ofSeconds(20));
        try (Coordis coordis = TestClients.builder().url(cluster.uri()).commandTimeout(Duration.ofSeconds(1)).connect();
             Waiter woken = coordis.signals().waiter("failover-news")) {
            // kill the master our pub/sub connection is on, if it is on a master, so that it must move too
            RedisServer listening = cluster.servers().stream()
                    .filter(s -> String.valueOf(s.command("CLIENT", "LIST")).contains("sub=1"))
                    .findFirst().orElseThrow();
            String key = cluster.keysOnEveryMaster(Prefixed.key("failover-jobs-")).stream()
                    .filter(k -> cluster.masterForKey(k) == listening).findFirst()
                    .orElse(cluster.keysOnEveryMaster(Prefixed.key("failover-jobs-")).get(0));
            String name = key.substring(Prefixed.prefix().length());
            System.out.printf("ClusterFailoverIT: pub/sub on %s, queue %s on %s%n", listening.address(), name,
                    cluster.masterForKey(key).address());
            ReliableQueue q = coordis.reliableQueue(name, options);
            List<byte[]> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                batch.add(("job-" + i).getBytes());
            }
            q.pushAll(batch);
            Lease lease = coordis.lock(name + ":lock").tryAcquire().orElseThrow();
            RedisServer master = cluster.masterForKey(key);
            RedisServer replica = cluster.replicasOf(master).get(0);
            Set<String> done = new HashSet<>();
            try (Consumer consumer = q.consumer()) {
                List<Delivery> inFlight = consumer.take(10, Duration.ofSeconds(2));
                assertThat(inFlight).hasSize(10);
                for (Delivery d : inFlight.subList(0, 5)) {
                    assertThat(d.ack()).isEqualTo(Outcome.ACKED);
                    done.add(d.text());
                }
                awaitReplicaCaughtUp(master, replica);

                master.kill();
                long killed = System.nanoTime();
                cluster.failover(replica, true);
                System.out.printf("ClusterFailoverIT: replica %s promoted %d ms after kill -9 of %s%n", replica.address(),
                        (System.nanoTime() - killed) / 1_000_000, master.address());

                // the client finds the new master: in-flight deliveries settle, the lease is still ours
                for (Delivery d : inFlight.subList(5, 10)) {
                    assertThat(eventually(d::ack)).as("ack of %s after the failover", d.text()).isEqualTo(Outcome.ACKED);
                    done.add(d.text());
                }
                System.out.printf("ClusterFailoverIT: first command on the new master %d ms after the kill%n",
                        (System.nanoTime() - killed) / 1_000_000);
                assertThat(eventually(() -> lease.extend(Duration.ofSeconds(30)))).as("the lease survived on the replica").isTrue();
                assertThat(eventually(() -> q.push("after-failover"))).isPositive();
                eventually(() -> coordis.signals().signal("failover-news", "promoted"));
                assertThat(woken.await(Duration.ofSeconds(10))).as("pub/sub still works").map(Signal::data).contains("promoted");
                while (done.size() < 101) {
                    Optional<Delivery> next = eventually(() -> consumer.take(Duration.ofSeconds(1)));
                    if (next.isEmpty()) {
                        break;
                    }
                    Delivery d = next.get();
                    assertThat(eventually(d::ack)).isEqualTo(Outcome.ACKED);
                    done.add(d.text());
                }
            }
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < 100; i++) {
                expected.add("job-" + i);
            }
            expected.add("after-failover");
            assertThat(done).as("every message replicated before the kill was delivered").isEqualTo(expected);
            assertThat(lease.release()).isTrue();
            assertThat(replica.command("EXISTS", key)).as("queue drained on the promoted replica").isEqualTo(0L);
            String lockKey = Prefixed.key(name + ":lock");
            assertThat(cluster.masterForKey(lockKey).command("EXISTS", lockKey)).isEqualTo(0L);
        }
    }

    @Test
    void aPausedMasterStallsOnlyItsOwnSlots() throws Exception {
        try (Coordis coordis = TestClients.builder().url(cluster.uri()).commandTimeout(Duration.ofMillis(500))
                .connect()) {
            // names whose keys, with the run's prefix, are one on each master
            List<String> names = cluster.keysOnEveryMaster(Prefixed.key("pause-")).stream()
                    .map(k -> k.substring(Prefixed.prefix().length())).toList();
            // a hash tag of the first name's key puts a lock in that key's slot
            String pausedTag = "{" + Prefixed.key(names.get(0)) + "}:";
            for (String name : names) {
                coordis.lock(name).tryAcquire().orElseThrow().release(); // node connections open, scripts cached
            }
            RedisServer paused = cluster.masterForKey(Prefixed.key(names.get(0)));
            int stalled = 0;
            int served = 0;
            paused.pause(); // SIGSTOP for about 2 s: shorter than the node timeout, so no failover
            try {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (System.nanoTime() < until) {
                    try {
                        coordis.lock(pausedTag + stalled).tryAcquire(); // in the paused slot
                        throw new AssertionError("a lock on the paused master's slot was answered");
                    } catch (NodeUnavailableException expected) {
                        stalled++;
                    }
                    for (String name : names.subList(1, names.size())) {
                        Lease lease = coordis.lock(name).tryAcquire().orElseThrow(
                                () -> new AssertionError("a healthy master did not grant its lock"));
                        assertThat(lease.release()).isTrue();
                        served++;
                    }
                }
            } finally {
                paused.resume();
            }
            System.out.printf("ClusterFailoverIT: while %s was paused, %d locks on its slot timed out and %d on the "
                    + "other masters were granted%n", paused.address(), stalled, served);
            assertThat(stalled).isPositive();
            assertThat(served).as("healthy masters kept serving while one was paused").isGreaterThanOrEqualTo(stalled);
            String after = pausedTag + "after-resume";
            Lease back = eventually(() -> coordis.lock(after).tryAcquire().orElseThrow());
            assertThat(back.release()).as("the resumed master serves its slots again").isTrue();
        }
    }

    /** Waits until the replica reports the master's replication offset (writes are replicated asynchronously). */
    private static void awaitReplicaCaughtUp(RedisServer master, RedisServer replica) throws InterruptedException {
        long target = Long.parseLong(master.info("replication").get("master_repl_offset"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Map<String, String> info = replica.info("replication");
            String offset = info.get("slave_repl_offset");
            if (offset != null && Long.parseLong(offset) >= target) {
                return;
            }
            assertThat(System.nanoTime()).as("replica caught up within 10 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** Retries {@code call} while the cluster reconfigures (infrastructure errors only), for up to 30 s. */
    private static <T> T eventually(Callable<T> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                return call.call();
            } catch (NodeUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }
}
