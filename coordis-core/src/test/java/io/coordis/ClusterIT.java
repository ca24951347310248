package io.coordis;

import io.coordis.election.LeaderElection;
import io.coordis.election.LeaderEvent;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.Permit;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Event;
import io.coordis.signal.Signal;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Every primitive on a real 3-master Redis Cluster, with names spread over all three masters, names carrying
 * their own {hash tag}, and a name whose keys cannot share a slot. Keys are checked on the master that owns
 * them, so a key written to the wrong slot (or node) would be caught.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@SuppressWarnings("unchecked")
class ClusterIT {
    private static RedisCluster cluster;
    private Coordis coordis;

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
    void connect() {
        cluster.flushAll();
        coordis = TestClients.connect(cluster.uri());
    }

    @AfterEach
    void close() {
        coordis.close();
    }

    /** Names {@code start + n} whose keys, with the run's prefix, are one on each master (as keysOnEveryMaster). */
    private static List<String> namesOnEveryMaster(String start) {
        return cluster.keysOnEveryMaster(Prefixed.key(start)).stream()
                .map(key -> key.substring(Prefixed.prefix().length())).toList();
    }

    /** Runs a command on the master that owns {@code key}, as a foreign client would after a MOVED. */
    private static Object onOwner(String key, String... command) {
        try (RespClient c = cluster.masterForKey(key).client()) {
            return c.command(command);
        }
    }

    @Test
    void locksOnEveryMasterExcludeFenceAndRelease() throws Exception {
        List<String> names = new ArrayList<>(namesOnEveryMaster("lock-"));
        names.add("{tenant-7}:invoice:42"); // a name with its own hash tag
        try (Coordis other = TestClients.connect(cluster.uri())) {
            for (String name : names) {
                String key = Prefixed.key(name);
                DistributedLock mine = coordis.lock(name);
                DistributedLock theirs = other.lock(name);
                Lease first = mine.tryAcquire().orElseThrow();
                assertThat(onOwner(key, "GET", key)).as("the lock key is the name, on its slot's master")
                        .isEqualTo(first.token());
                assertThat(theirs.tryAcquire()).as(name + " is held").isEmpty();
                CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return theirs.acquire(Duration.ofSeconds(20)).orElseThrow();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(100);
                assertThat(waiting).as("the waiter waits while the lock is held").isNotDone();
                assertThat(first.release()).isTrue();
                Lease second = waiting.get(20, TimeUnit.SECONDS);
                assertThat(second.fencingToken()).as("fencing grows across holders").isGreaterThan(first.fencingToken());
                assertThat(second.release()).isTrue();
                assertThat(onOwner(key, "EXISTS", key)).isEqualTo(0L);
            }
        }
        Set<RedisServer> owners = new HashSet<>();
        names.forEach(n -> owners.add(cluster.masterForKey(Prefixed.key(n))));
        assertThat(owners).as("the names covered every master").hasSize(3);
    }

    @Test
    void semaphoresOnEveryMasterKeepTheirKeysInOneSlotAndWakeTheirWaiters() throws Exception {
        List<String> names = new ArrayList<>(namesOnEveryMaster("sem-"));
        names.add("{tenant-7}:pool"); // a name with its own hash tag
        try (Coordis other = TestClients.connect(cluster.uri())) {
            for (String name : names) {
                String key = Prefixed.key(name);
                Permit first = coordis.semaphore(name, 1).tryAcquire().orElseThrow();
                assertThat(onOwner(key, "ZSCORE", key, first.token())).as("holders at the name, on its slot's master")
                        .isNotNull();
                CompletableFuture<Optional<Permit>> waiting = other.semaphore(name, 1).acquireAsync(Duration.ofSeconds(20));
                Thread.sleep(100);
                assertThat(waiting).as("the waiter waits while the permit is held").isNotDone();
                assertThat(first.release()).isTrue();
                Permit second = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
                assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
                assertThat(coordis.inspector().semaphore(key).orElseThrow().holders()).singleElement()
                        .satisfies(h -> assertThat(h.fence()).hasValue(second.fencingToken()));
                assertThat(second.release()).isTrue();
            }
        }
    }

    @Test
    void scriptsAreResentToEachNodeThatForgotThem() throws Exception {
        List<String> names = namesOnEveryMaster("noscript-");
        for (String name : names) {
            coordis.lock(name).tryAcquire().orElseThrow().release(); // every master has the scripts cached
        }
        for (RedisServer m : cluster.masters()) {
            m.command("SCRIPT", "FLUSH");
        }
        for (String name : names) {
            Lease lease = coordis.lock(name).tryAcquire().orElseThrow(); // EVALSHA answers NOSCRIPT, EVAL runs
            assertThat(onOwner(Prefixed.key(name), "GET", Prefixed.key(name))).isEqualTo(lease.token());
            assertThat(lease.release()).isTrue();
            ReliableQueue q = coordis.reliableQueue(name + ":q");
            q.push("x");
            assertThat(q.stats().depth()).isEqualTo(1);
        }
        String acquireSha = io.coordis.internal.redis.LuaScript.load(io.coordis.internal.redis.LuaScript.class,
                "/io/coordis/internal/lock/acquire.lua").sha();
        for (RedisServer m : cluster.masters()) {
            assertThat(m.command("SCRIPT", "EXISTS", acquireSha)).as("reloaded on %s", m.address()).isEqualTo(List.of(1L));
        }
    }

    @Test
    void aNameWhoseKeysCannotShareASlotFailsNamingCrossslot() {
        String name = "a{}b"; // braces without a tag: the name hashes whole, {a{}b}:fence does not
        assertThat(RedisCluster.slot(Prefixed.key(name)))
                .isNotEqualTo(RedisCluster.slot(Prefixed.derived(name, "fence")));
        assertThatThrownBy(() -> coordis.lock(name).tryAcquire())
                .isInstanceOf(CommandRejectedException.class)
                .hasMessageContaining("CROSSSLOT").hasMessageContaining("a{}b").hasMessageContaining("hash tag");
        assertThatThrownBy(() -> coordis.reliableQueue(name).push("x"))
                .isInstanceOf(CommandRejectedException.class).hasMessageContaining("CROSSSLOT");
        assertThat(onOwner(Prefixed.key(name), "EXISTS", Prefixed.key(name))).as("nothing was written").isEqualTo(0L);
        // the client stays usable
        assertThat(coordis.lock("fine").tryAcquire()).isPresent();
    }

    @Test
    void redlockOverAClusterAndReplicaUrlsAreRefused() {
        assertThatThrownBy(() -> Coordis.connect(List.of(cluster.uri(), "redis://127.0.0.1:1", "redis://127.0.0.1:2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Redlock").hasMessageContaining("cluster");
        assertThatThrownBy(() -> Coordis.builder().url(cluster.uri()).replicaUrls(List.of("redis://127.0.0.1:1")).connect())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replica");
        assertThatThrownBy(() -> Coordis.connect("redis-cluster://user:secret@127.0.0.1:1,127.0.0.1/3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("secret");
    }

    @Test
    void electionsOnDifferentSlotsCampaignResignAndObserve() throws Exception {
        for (String name : namesOnEveryMaster("election-")) {
            try (Coordis other = TestClients.connect(cluster.uri());
                 LeaderElection a = coordis.election(name);
                 LeaderElection b = other.election(name)) {
                List<LeaderEvent> seen = new CopyOnWriteArrayList<>();
                try (AutoCloseable watch = b.observe(seen::add)) {
                    Leadership lead = a.campaign(Duration.ofSeconds(5)).orElseThrow();
                    assertThat(onOwner(Prefixed.key(name), "GET", Prefixed.key(name))).isEqualTo(a.candidateId());
                    assertThat(b.campaign(Duration.ofMillis(200))).as("one leader at a time").isEmpty();
                    await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream()
                            .anyMatch(e -> e.leader().map(l -> l.id().equals(a.candidateId())).orElse(false)));
                    CompletableFuture<Optional<Leadership>> next = CompletableFuture.supplyAsync(() -> {
                        try {
                            return b.campaign(Duration.ofSeconds(20));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    Thread.sleep(100);
                    assertThat(lead.resign()).isTrue();
                    Leadership successor = next.get(20, TimeUnit.SECONDS).orElseThrow();
                    assertThat(successor.term()).isGreaterThan(lead.term());
                    await().atMost(Duration.ofSeconds(10)).until(() -> seen.stream()
                            .anyMatch(e -> e.leader().map(l -> l.id().equals(b.candidateId())).orElse(false)));
                }
            }
        }
    }

    @Test
    void broadcastReachesWaitersWhicheverNodeTheyListenOn() throws Exception {
        // foreign subscribers on every master, plus a Coordis waiter: one PUBLISH reaches them all
        List<RespClient> foreign = new ArrayList<>();
        try {
            for (RedisServer m : cluster.masters()) {
                RespClient c = m.client();
                c.command("SUBSCRIBE", Prefixed.key("jobs-done"));
                foreign.add(c);
            }
            try (Waiter w = coordis.signals().waiter("jobs-done");
                 Coordis publisher = TestClients.connect("redis-cluster://" + cluster.seeds().get(2))) {
                publisher.signals().signal("jobs-done", "batch 1");
                assertThat(w.await(Duration.ofSeconds(5))).map(Signal::data).contains("batch 1");
                for (RespClient c : foreign) {
                    assertThat((List<Object>) c.read()).as("a subscriber on another node").contains("batch 1");
                }
            }
        } finally {
            foreign.forEach(RespClient::close);
        }
    }

    @Test
    void signalOneFindsWaitersOnEveryNodeAndWakesExactlyOne() throws Exception {
        // Waiters listening on three different nodes: foreign ones subscribed to <channel><id> on each master
        // (as other clients would be), and Coordis waiters wherever their client's pub/sub connection went.
        List<RespClient> foreign = new ArrayList<>();
        List<Waiter> ours = new ArrayList<>();
        try (Coordis second = TestClients.connect("redis-cluster://" + cluster.seeds().get(1))) {
            for (int i = 0; i < cluster.masters().size(); i++) {
                RespClient c = cluster.masters().get(i).client();
                c.command("SUBSCRIBE", Prefixed.key("worker:foreign-" + i));
                foreign.add(c);
            }
            ours.add(coordis.signals().unicastWaiter("worker:"));
            ours.add(second.signals().unicastWaiter("worker:"));
            int waiters = foreign.size() + ours.size();
            foreign.forEach(c -> c.timeout(Duration.ofMillis(30)));
            Set<Integer> foreignNodes = new HashSet<>();
            int oursHeard = 0;
            for (int round = 0; round < 200 && (foreignNodes.size() < 3 || oursHeard == 0); round++) {
                assertThat(coordis.signals().signalOne("worker:", "task " + round)).as("round %d", round).isEqualTo(1);
                int heard = 0;
                for (int i = 0; i < foreign.size(); i++) {
                    try {
                        @SuppressWarnings("unchecked") List<Object> msg = (List<Object>) foreign.get(i).read();
                        assertThat(msg).contains("task " + round);
                        heard++;
                        foreignNodes.add(i);
                    } catch (java.io.UncheckedIOException timeout) {
                        // this one was not chosen
                    }
                }
                if (heard == 0) {
                    // a Coordis waiter's message may still be on its way
                    CompletableFuture.anyOf(ours.stream().map(w -> w.whenSignalled().toCompletableFuture())
                            .toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
                }
                int ourHeard = 0;
                for (int j = 0; j < ours.size(); j++) {
                    Optional<Signal> got = ours.get(j).poll();
                    if (got.isPresent()) {
                        assertThat(got.get().data()).isEqualTo("task " + round);
                        ourHeard++;
                        // a waiter wakes once: a fresh one takes its place (the old one unsubscribes)
                        String old = Prefixed.key(ours.get(j).channels().get(0));
                        ours.get(j).close();
                        ours.set(j, (j == 0 ? coordis : second).signals().unicastWaiter("worker:"));
                        await().atMost(Duration.ofSeconds(5)).until(() -> cluster.masters().stream()
                                .noneMatch(m -> ((List<?>) m.command("PUBSUB", "CHANNELS", old)).contains(old)));
                    }
                }
                oursHeard += ourHeard;
                assertThat(heard + ourHeard).as("exactly one of %d waiters woke in round %d", waiters, round).isEqualTo(1);
            }
            assertThat(oursHeard).as("Coordis waiters were chosen too").isPositive();
            assertThat(foreignNodes).as("waiters on all three masters were chosen").hasSize(3);
        } finally {
            foreign.forEach(RespClient::close);
            ours.forEach(Waiter::close);
        }
        for (RedisServer m : cluster.masters()) {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> ((List<?>) m.command("PUBSUB", "CHANNELS", Prefixed.key("worker:*"))).isEmpty());
        }
        assertThat(coordis.signals().signalOne("worker:", "nobody")).as("nobody waits anywhere").isZero();
    }

    @Test
    void latchedEventIsSeenByALateWaiter() throws Exception {
        Event event = coordis.signals().event("deploy-finished", Duration.ofSeconds(30));
        try (Waiter early = event.waiter()) {
            event.signal("v42");
            assertThat(early.await(Duration.ofSeconds(5))).map(Signal::data).contains("v42");
        }
        try (Coordis late = TestClients.connect(cluster.uri());
             Waiter lateWaiter = late.signals().event("deploy-finished", Duration.ofSeconds(30)).waiter()) {
            assertThat(lateWaiter.await(Duration.ofSeconds(1))).map(Signal::data).contains("v42");
        }
        assertThat(onOwner(event.key(), "GET", event.key())).isEqualTo("v42");
    }

    @Test
    void plainQueuesOnEveryMasterKeepOrderAndBlock() throws Exception {
        for (String name : namesOnEveryMaster("plain-")) {
            Queue q = coordis.queue(name);
            q.pushAll(List.of("1".getBytes(), "2".getBytes()));
            onOwner(Prefixed.key(name), "LPUSH", Prefixed.key(name), "3"); // a foreign producer
            assertThat(q.depth()).isEqualTo(3);
            assertThat(q.pop(3)).extracting(String::new).containsExactly("1", "2", "3");
            CompletableFuture<Optional<byte[]>> blocked = CompletableFuture.supplyAsync(() -> {
                try {
                    return q.pop(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200);
            q.push("late");
            assertThat(blocked.get(20, TimeUnit.SECONDS)).map(String::new).contains("late");
        }
    }

    @Test
    void reliableQueuesOnEveryMasterAckNackDeadLetterAndReportStats() throws Exception {
        List<String> names = new ArrayList<>(namesOnEveryMaster("jobs-"));
        names.add("{tenant-7}:jobs");
        for (String name : names) {
            String key = Prefixed.key(name);
            ReliableQueue q = coordis.reliableQueue(name, QueueOptions.defaults().withMaxAttempts(2));
            q.pushAll(List.of("a".getBytes(), "poison".getBytes()));
            try (Consumer c = q.consumer()) {
                Delivery a = c.take(Duration.ofSeconds(2)).orElseThrow();
                assertThat(a.text()).isEqualTo("a");
                QueueStats stats = q.stats();
                assertThat(stats.depth()).isEqualTo(1);
                assertThat(stats.inFlight()).isEqualTo(1);
                assertThat(stats.consumers()).singleElement().satisfies(s -> assertThat(s.alive()).isTrue());
                assertThat(a.ack()).isEqualTo(Outcome.ACKED);
                for (int attempt = 1; attempt <= 2; attempt++) {
                    Delivery p = c.take(Duration.ofSeconds(2)).orElseThrow();
                    assertThat(p.text()).isEqualTo("poison");
                    assertThat(p.nack()).isEqualTo(attempt < 2 ? Outcome.REQUEUED : Outcome.DEAD_LETTERED);
                }
                String dead = Prefixed.derived(name, "dead");
                assertThat(onOwner(dead, "LRANGE", dead, "0", "-1")).as("dead letters beside the queue")
                        .isEqualTo(List.of("poison"));
                assertThat(q.stats().deadLetters()).isEqualTo(1);
                assertThat(q.requeueDead(10)).isEqualTo(1);
                Delivery again = c.take(Duration.ofSeconds(2)).orElseThrow();
                assertThat(again.ack()).isEqualTo(Outcome.ACKED);
                // blocking take wakes on a foreign push to the owning master
                CompletableFuture<Optional<Delivery>> blocked = CompletableFuture.supplyAsync(() -> {
                    try {
                        return c.take(Duration.ofSeconds(20));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                Thread.sleep(200);
                onOwner(key, "LPUSH", key, "foreign");
                Delivery foreign = blocked.get(20, TimeUnit.SECONDS).orElseThrow();
                assertThat(foreign.text()).isEqualTo("foreign");
                assertThat(foreign.ack()).isEqualTo(Outcome.ACKED);
                assertThat(q.stats().inFlight()).isZero();
                // a delayed retry waits beside the queue on the same master and a sweep brings it back when due
                onOwner(key, "LPUSH", key, "later");
                Delivery later = c.take(Duration.ofSeconds(2)).orElseThrow();
                assertThat(later.nack(Duration.ofMillis(300))).isEqualTo(Outcome.DELAYED);
                assertThat(q.stats().delayed()).isEqualTo(1);
                assertThat(onOwner(key, "LLEN", key)).as("not back before its delay").isEqualTo(0L);
                Thread.sleep(400);
                q.sweep();
                Delivery due = c.take(Duration.ofSeconds(2)).orElseThrow();
                assertThat(due.text()).isEqualTo("later");
                assertThat(due.ack()).isEqualTo(Outcome.ACKED);
                assertThat(q.stats().delayed()).isZero();
            }
        }
    }

    @Test
    void aDeadConsumersMessagesAreSweptBackOnItsSlot() throws Exception {
        QueueOptions fast = QueueOptions.defaults().withHeartbeatTtl(Duration.ofMillis(1000))
                .withSweepInterval(Duration.ofMillis(100));
        for (String name : namesOnEveryMaster("orphan-")) {
            ReliableQueue q = coordis.reliableQueue(name, fast);
            q.push("work");
            Coordis dying = TestClients.connect(cluster.uri());
            Consumer doomed = dying.reliableQueue(name, fast).consumer();
            Delivery lost = doomed.take(Duration.ofSeconds(2)).orElseThrow();
            dying.close(); // heartbeats stop, nothing is released: as after kill -9
            try (Consumer survivor = q.consumer()) {
                Delivery again = survivor.take(Duration.ofSeconds(10)).orElseThrow();
                assertThat(again.text()).isEqualTo("work");
                assertThat(again.attempts()).isEqualTo(2);
                assertThat(q.ack(lost.id())).isEqualTo(Outcome.GONE);
                assertThat(again.ack()).isEqualTo(Outcome.ACKED);
            }
        }
    }
}
