package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.NotReplicatedException;
import io.coordis.Replication;
import io.coordis.TestClients;
import io.coordis.doctor.Finding;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Grants, terms and pushes that must reach a replica, on a real master and replica: with the replica up they count;
 * with the replica stopped (SIGSTOP) they fail with {@link NotReplicatedException} within about the wait, and a lock
 * grant or a term is given back, nothing held.
 */
class ReplicatedAcquisitionIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.withReplicas(1);

    /** Generous, so that a replica that is up acknowledges in time on a loaded machine. */
    private static final Replication ONE = Replication.toReplicas(1, Duration.ofMillis(500));

    private static RedisServer replica(RedisGroup group) {
        return group.replicas().get(0);
    }

    /** The replica runs again and acknowledges writes: a write of the test kit's own, waited for up to 10 s. */
    @AfterEach
    void replicaRuns() {
        replica(redis.group()).resume();
        redis.group().awaitReplicasInSync(Duration.ofSeconds(10));
        List<Object> replies = redis.group().master().commandsOnOneConnection(
                new String[] {"SET", Prefixed.key("caught-up"), "1"}, new String[] {"WAIT", "1", "10000"});
        assertThat(replies.get(1)).as("the replica acknowledges again").isEqualTo(1L);
    }

    @Test
    void aGrantThatReachedTheReplicaIsHeldAndTheReplicaHasIt(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.connect(group.master().uri())) {
            DistributedLock lock = c.lock("orders", LockOptions.defaults().withReplication(ONE));
            try (Lease lease = lock.tryAcquire().orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
                assertThat(lease.fencingToken()).isPositive();
                // acknowledged by the replica before the grant counted: it is there already, no polling
                assertThat(replica(group).command("EXISTS", Prefixed.key("orders"))).isEqualTo(1L);
                assertThat(replica(group).command("GET", Prefixed.derived("orders", "fence")))
                        .isEqualTo(Long.toString(lease.fencingToken()));
            }
        }
    }

    @Test
    void aGrantTheStoppedReplicaDidNotAcknowledgeIsGivenBackAndReported(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.connect(group.master().uri())) {
            DistributedLock lock = c.lock("stopped", LockOptions.defaults().withReplication(ONE));
            long before;
            try (Lease first = lock.tryAcquire().orElseThrow()) {
                before = first.fencingToken();
            }
            replica(group).pause();
            long start = System.nanoTime();
            NotReplicatedException e = catchThrowableOfType(lock::tryAcquire, NotReplicatedException.class);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(e).as("the acquire fails as not replicated").isNotNull();
            assertThat(millis).as("fails within about the wait of 500 ms").isBetween(450L, 3000L);
            assertThat(e.acknowledged()).isZero();
            assertThat(e.wanted()).isEqualTo(1);
            assertThat(e.key()).isEqualTo(Prefixed.key("stopped"));
            assertThat(e.getMessage()).contains("lock 'stopped'", Prefixed.key("stopped"), "0 of 1 replica",
                    "given back", "INFO replication");
            // nothing left held on the master; the fencing number it took is spent, never handed out
            assertThat(group.master().command("EXISTS", Prefixed.key("stopped"))).isEqualTo(0L);
            assertThat(lock.holder()).isEmpty();
            long spent = Long.parseLong((String) group.master().command("GET", Prefixed.derived("stopped", "fence")));
            assertThat(spent).isGreaterThan(before);
            replica(group).resume();
            group.awaitReplicasInSync(Duration.ofSeconds(10));
            try (Lease again = lock.tryAcquire().orElseThrow()) {
                assertThat(again.fencingToken()).isGreaterThan(spent);
            }
        }
    }

    /**
     * Threads of one client in line for one lock pass it on locally with fencing numbers from a block taken by a
     * grant that waited for the replica: every number a holder gets is on the replica already, and the referee sees
     * one holder at a time with rising numbers.
     */
    @Test
    void localHandOffsUseNumbersTheReplicaHasAlready(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.connect(group.master().uri()); FencedResource resource = FencedResource.start()) {
            DistributedLock lock = c.lock("busy", LockOptions.defaults().withReplication(ONE));
            String fence = Prefixed.derived("busy", "fence");
            List<String> problems = new CopyOnWriteArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> workers = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    String client = "t" + t;
                    workers.add(pool.submit(() -> {
                        for (int i = 0; i < 50; i++) {
                            try (Lease lease = lock.acquire(Duration.ofSeconds(30)).orElseThrow()) {
                                long n = lease.fencingToken();
                                resource.enter(client, n);
                                resource.write(client, n);
                                long onReplica = Long.parseLong((String) replica(group).command("GET", fence));
                                if (onReplica < n) {
                                    problems.add(client + " holds " + n + " but the replica's counter is " + onReplica);
                                }
                                resource.exit(client, n);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> w : workers) {
                    w.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            FencedResource.Report report = resource.report();
            assertThat(problems).isEmpty();
            assertThat(report.totalEnters()).isEqualTo(200);
            assertThat(report.violations() + report.fenceRegressions() + report.overlaps()).as("%s", report.notes())
                    .isZero();
        }
    }

    @Test
    void aTermTheStoppedReplicaDidNotAcknowledgeIsNotTaken(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.connect(group.master().uri());
             LeaderElection election = c.election("leader", ElectionOptions.defaults().withReplication(ONE))) {
            replica(group).pause();
            NotReplicatedException e = catchThrowableOfType(() -> election.campaign(Duration.ofSeconds(2)),
                    NotReplicatedException.class);
            assertThat(e).as("the campaign fails as not replicated").isNotNull();
            assertThat(e.getMessage()).contains("election 'leader'", "does not lead");
            assertThat(election.leader()).isEmpty();
            assertThat(group.master().command("EXISTS", Prefixed.key("leader"))).isEqualTo(0L);
            replica(group).resume();
            group.awaitReplicasInSync(Duration.ofSeconds(10));
            Leadership l = election.campaign(Duration.ofSeconds(5)).orElseThrow();
            assertThat(l.isHeld()).isTrue();
            assertThat(replica(group).command("GET", Prefixed.key("leader"))).isEqualTo(election.candidateId());
            l.resign();
        }
    }

    @Test
    void aPushTheStoppedReplicaDidNotAcknowledgeIsReportedAndStaysOnTheMaster(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.connect(group.master().uri())) {
            ReliableQueue q = c.reliableQueue("jobs", QueueOptions.defaults().withReplication(ONE));
            q.push("first");
            assertThat(replica(group).command("LLEN", Prefixed.key("jobs"))).isEqualTo(1L);
            replica(group).pause();
            NotReplicatedException e = catchThrowableOfType(() -> q.push("second"), NotReplicatedException.class);
            assertThat(e).as("the push fails as not replicated").isNotNull();
            assertThat(e.getMessage()).contains("queue 'jobs'", "in the queue on the master");
            assertThat(group.master().command("LLEN", Prefixed.key("jobs"))).isEqualTo(2L);
        }
    }

    @Test
    void theClientsDefaultAppliesAndALocksOwnOptionWins(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.builder().url(group.master().uri()).replication(ONE).connect()) {
            replica(group).pause();
            assertThatThrownBy(() -> c.lock("by-default").tryAcquire()).isInstanceOf(NotReplicatedException.class);
            assertThatThrownBy(() -> c.reliableQueue("by-default-q").push("x"))
                    .isInstanceOf(NotReplicatedException.class);
            DistributedLock own = c.lock("own", LockOptions.defaults().withReplication(Replication.none()));
            try (Lease lease = own.tryAcquire().orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    /**
     * While a grant waits for the stopped replica (its {@code WAIT} blocked at Redis), the client's other commands do
     * not wait behind it: a try for a lock that does not wait for replicas answers first. The {@code WAIT} runs on a
     * connection of its own, where the grant was written too, since it counts that connection's writes.
     */
    @Test
    void aWaitForTheReplicaHoldsUpNoOtherCommandOfTheClient(RedisGroup group) throws Exception {
        Replication patient = Replication.toReplicas(1, Duration.ofSeconds(3));
        try (Coordis c = TestClients.connect(group.master().uri())) {
            DistributedLock waiting = c.lock("waits", LockOptions.defaults().withReplication(patient));
            DistributedLock plain = c.lock("plain");
            waiting.tryAcquire().orElseThrow().release(); // the connections are open and the scripts loaded
            plain.tryAcquire().orElseThrow().release();
            replica(group).pause();

            List<String> answered = new CopyOnWriteArrayList<>();
            CompletableFuture<Optional<Lease>> grant = waiting.tryAcquireAsync();
            grant.whenComplete((l, f) -> answered.add("the grant waiting for the replica"));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() ->
                    ((String) group.master().command("CLIENT", "LIST")).contains("cmd=wait"));
            assertThat(grant).as("the WAIT blocks at Redis").isNotDone();

            CompletableFuture<Optional<Lease>> other = plain.tryAcquireAsync();
            other.whenComplete((l, f) -> answered.add("the plain try"));
            Lease lease = other.get(10, TimeUnit.SECONDS).orElseThrow();
            lease.release();
            Throwable failure = catchThrowable(() -> grant.get(10, TimeUnit.SECONDS));
            assertThat(failure).hasCauseInstanceOf(NotReplicatedException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> answered.size() == 2);
            assertThat(answered).as("the order in which they answered")
                    .containsExactly("the plain try", "the grant waiting for the replica");
        }
    }

    @Test
    void whatDoesNotWaitForReplicasRefusesToBeAskedTo(RedisGroup group) {
        LockOptions replicated = LockOptions.defaults().withReplication(ONE);
        try (Coordis c = TestClients.connect(group.master().uri())) {
            assertThatThrownBy(() -> c.semaphore("pool", 2, replicated))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a semaphore does not wait for replicas")
                    .hasMessageContaining("Replication.none()");
            assertThatThrownBy(() -> c.readWriteLock("rw", replicated))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-write lock");
            assertThatThrownBy(() -> c.legacyLock("legacy", replicated))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("legacy lock");
            assertThatThrownBy(() -> c.lock("short", replicated.withTtl(Duration.ofMillis(1000))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("replica timeout 500ms must be below half the lock ttl 1s");
            // the client's default leaves what cannot wait alone
            try (Coordis d = TestClients.builder().url(group.master().uri()).replication(ONE).connect()) {
                assertThat(d.semaphore("pool", 2).tryAcquire()).isPresent();
            }
        }
    }

    @Test
    void redlockRefusesReplication() {
        List<String> masters = List.of("redis://127.0.0.1:1", "redis://127.0.0.1:2", "redis://127.0.0.1:3");
        assertThatThrownBy(() -> TestClients.builder().urls(masters).replication(ONE).connect())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 Redlock masters does not wait for replicas");
        try (Coordis c = TestClients.connect(masters)) {
            assertThatThrownBy(() -> c.lock("r", LockOptions.defaults().withReplication(ONE)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a Redlock lock does not wait for replicas");
        }
    }

    @Test
    void theDoctorWarnsAboutAReplicatedMasterThatKeepsTakingWritesAlone(RedisGroup group) throws Exception {
        // the least-privilege pass's user may not run CONFIG GET: the doctor then reports UNKNOWN (DoctorIT)
        assumeFalse(group.master().isDefaultUserRestricted(), "the doctor needs CONFIG GET");
        try (Coordis c = TestClients.connect(group.master().uri())) {
            Finding warning = replicationFinding(c);
            assertThat(warning.severity()).isEqualTo(Finding.Severity.WARN);
            assertThat(warning.message()).contains("min-replicas-to-write 0");
            assertThat(warning.fix()).contains("CONFIG SET min-replicas-to-write 1", "min-replicas-max-lag 10");
            group.master().command("CONFIG", "SET", "min-replicas-to-write", "1");
            try {
                assertThat(replicationFinding(c).severity()).isEqualTo(Finding.Severity.OK);
                group.master().command("CONFIG", "SET", "min-replicas-max-lag", "60");
                assertThat(replicationFinding(c).message()).contains("min-replicas-max-lag 60");
                assertThat(replicationFinding(c).severity()).isEqualTo(Finding.Severity.WARN);
            } finally {
                group.master().command("CONFIG", "SET", "min-replicas-to-write", "0");
                group.master().command("CONFIG", "SET", "min-replicas-max-lag", "10");
            }
        }
    }

    /**
     * A replicated grant sends one {@code WAIT} to the master, and a plain one none: counted by the master's
     * {@code INFO commandstats} over 50 acquire-and-release cycles of each (what the wait costs is measured by
     * {@code QuickReplicatedAcquire} in coordis-bench).
     */
    @Test
    void everyReplicatedGrantSendsOneWaitAndAPlainGrantNone(RedisGroup group) throws Exception {
        try (Coordis c = TestClients.connect(group.master().uri())) {
            DistributedLock plain = c.lock("counted-plain");
            DistributedLock waiting = c.lock("counted-waiting", LockOptions.defaults().withReplication(ONE));
            long before = waitCalls(group.master());
            for (int i = 0; i < 50; i++) {
                plain.tryAcquire().orElseThrow().release();
            }
            assertThat(waitCalls(group.master())).as("WAITs sent for 50 plain grants").isEqualTo(before);
            for (int i = 0; i < 50; i++) {
                waiting.tryAcquire().orElseThrow().release();
            }
            assertThat(waitCalls(group.master())).as("WAITs sent for 50 replicated grants").isEqualTo(before + 50);
            long last;
            try (Lease lease = waiting.tryAcquire().orElseThrow()) {
                last = lease.fencingToken();
            }
            assertThat(waitCalls(group.master())).isEqualTo(before + 51);
            assertThat(replica(group).command("GET", Prefixed.derived("counted-waiting", "fence")))
                    .as("the replica has the counter the last replicated grant left").isEqualTo(Long.toString(last));
        }
    }

    /** How many {@code WAIT}s {@code server} has run, by {@code INFO commandstats}; 0 before the first. */
    private static long waitCalls(RedisServer server) {
        String stats = server.info("commandstats").get("cmdstat_wait");
        if (stats == null) {
            return 0;
        }
        Matcher calls = Pattern.compile("calls=(\\d+)").matcher(stats);
        assertThat(calls.find()).as("calls in %s", stats).isTrue();
        return Long.parseLong(calls.group(1));
    }

    private static Finding replicationFinding(Coordis c) throws InterruptedException {
        return c.doctor().examine().findings().stream().filter(f -> f.topic().equals("replication")).findFirst()
                .orElseThrow(() -> new AssertionError("no replication finding"));
    }
}
