package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.NotReplicatedException;
import io.coordis.Replication;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same lock and queue workload through {@code soak.failovers} (default 20) failovers twice: without a replica
 * wait (the negative control) and with {@code Replication.toReplicas(1, 100ms)}; once on Sentinel (a master with one
 * replica, three sentinels) and once on a Redis Cluster (three masters with a replica each, failing over the master
 * of the workload's slot). The failovers ({@link Failovers.Deployment}) alternate between a kill -9 of the master
 * (restarted, it rejoins as a replica) and the manual one ({@code SENTINEL FAILOVER}; {@code CLUSTER FAILOVER} on the
 * replica), each after 3-6 s of work with the replicas in sync. Per failover it counts fenced violations, overlaps
 * and fence regressions (the {@link FencedResource}), fencing numbers handed out twice, lost grants (a short hold
 * whose release found the lock no longer its own) and confirmed pushes never delivered, plus deliveries seen twice
 * (at-least-once allows them). It asserts only that each run did its failovers and that nothing was delivered that
 * was not pushed: the figures are what docs/safety.md "Replicated acquisitions" compares. Run one deployment with
 * {@code -Dit.test=ReplicatedFailoverSoak#onSentinel} or {@code #onRedisCluster}.
 */
class ReplicatedFailoverSoak {
    private static final Replication ONE = Replication.toReplicas(1, Duration.ofMillis(100));
    private static final Duration HOLD_BACK = Duration.ofMillis(1500);
    /** The lock and the queue share a hash tag, so that on a cluster every failover hits both. */
    private static final String LOCK = "{soak:replicated-failover}:lock";
    private static final String QUEUE = "{soak:replicated-failover}:queue";

    @Test
    void onSentinel() throws Exception {
        compare("Sentinel", Failovers::sentinel);
    }

    @Test
    void onRedisCluster() throws Exception {
        compare("Redis Cluster", () -> Failovers.cluster(Prefixed.key(QUEUE)));
    }

    /**
     * On a Redis Cluster whose replica is held back for {@link #HOLD_BACK} before each failover: replication on
     * loopback is so fast that {@link #onRedisCluster()} loses next to nothing either way, while a lagging or
     * cut-off replica is what makes a cluster failover lose acknowledged writes in production.
     */
    @Test
    void onRedisClusterWithTheReplicaBehind() throws Exception {
        compare("Redis Cluster, replica behind", () -> Failovers.cluster(Prefixed.key(QUEUE), HOLD_BACK));
    }

    private static void compare(String where, Supplier<Failovers.Deployment> deployments) throws Exception {
        int count = SoakSettings.failovers();
        long seed = SoakSettings.seed("ReplicatedFailoverSoak " + where);
        SoakReport report = new SoakReport("ReplicatedFailoverSoak: " + where + " failovers with and without a replica "
                + "wait", seed);
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("replica wait", "failover", "how", "fenced violations", "fence regressions", "overlaps",
                "fencing numbers twice", "lost grants", "not replicated (reported)", "confirmed pushes lost"));
        Run without = run("none", Replication.none(), deployments.get(), count, new Random(seed), rows);
        Run with = run("WAIT 1 100ms", ONE, deployments.get(), count, new Random(seed), rows);
        for (Run r : List.of(without, with)) {
            report.figure(r.label + ": failovers / grants / pushes confirmed", r.failovers + " / " + r.grants + " / "
                    + r.confirmed);
            report.figure(r.label + ": fenced violations / regressions / overlaps / numbers twice / lost grants",
                    r.total[0] + " / " + r.total[1] + " / " + r.total[2] + " / " + r.total[3] + " / " + r.total[4]);
            report.figure(r.label + ": not replicated (reported) / confirmed pushes lost / delivered twice",
                    r.total[5] + " / " + r.total[6] + " / " + r.total[7]);
        }
        report.table(rows);
        report.check("both runs did their " + count + " failovers",
                        without.failovers == count && with.failovers == count)
                .check("nothing delivered that was not pushed", without.phantoms == 0 && with.phantoms == 0);
        report.note("Not asserted: the losses of the run without the wait are what a failover may do (docs/safety.md); "
                + "the run with it is expected to show none, but WAIT narrows the window and does not close it.");
        report.write();
        assertThat(without.failovers).isEqualTo(count);
        assertThat(with.failovers).isEqualTo(count);
        assertThat(without.phantoms + with.phantoms).as("deliveries nobody pushed").isZero();
    }

    /** One run's totals: violations, regressions, overlaps, numbers twice, lost grants, not replicated, lost, twice. */
    private static final class Run {
        final String label;
        int failovers;
        long grants;
        long confirmed;
        long phantoms;
        final long[] total = new long[8];

        Run(String label) {
            this.label = label;
        }
    }

    private static Run run(String label, Replication replication, Failovers.Deployment deployment, int count,
                           Random random, List<List<String>> rows) throws Exception {
        Run run = new Run(label);
        try (deployment; FencedResource resource = FencedResource.start();
             Workload work = new Workload(deployment.start(), replication, resource)) {
            List<long[]> before = new ArrayList<>();
            List<Long> starts = new ArrayList<>();
            List<Boolean> kills = new ArrayList<>();
            List<Long> settled = new ArrayList<>();
            for (int n = 1; n <= count; n++) {
                deployment.awaitHealthy();
                Thread.sleep(3000 + random.nextInt(3000));
                Failovers.awaitVoteGap(deployment, settled);
                RedisServer old = deployment.master();
                boolean kill = n % 2 == 1;
                before.add(work.snapshot());
                starts.add(System.nanoTime());
                kills.add(kill);
                deployment.failover(old, kill);
                settled.add(System.nanoTime());
                if (kill) {
                    old.restart(Duration.ZERO);
                }
                run.failovers++;
                System.out.println("ReplicatedFailoverSoak " + label + ": failover " + n + (kill ? " (kill -9)" : ""));
            }
            deployment.awaitHealthy();
            Thread.sleep(3000);
            work.stop();
            before.add(work.snapshot());
            for (int i = 0; i < count; i++) {
                long from = starts.get(i);
                long to = i + 1 < count ? starts.get(i + 1) : Long.MAX_VALUE;
                long[] a = before.get(i);
                long[] b = before.get(i + 1);
                long[] row = {b[0] - a[0], b[1] - a[1], b[2] - a[2], work.numbersTwiceBetween(from, to),
                        work.lostGrantsBetween(from, to), work.notReplicatedBetween(from, to),
                        work.lostPushedBefore(from, i == 0 ? Long.MIN_VALUE : starts.get(i - 1))};
                for (int k = 0; k < row.length; k++) {
                    run.total[k] += row[k];
                }
                List<String> cells = new ArrayList<>(List.of(label, Integer.toString(i + 1),
                        deployment.how(kills.get(i))));
                for (int k = 0; k < 7; k++) {
                    cells.add(Long.toString(row[k]));
                }
                rows.add(cells);
            }
            run.total[7] = work.deliveredTwice();
            run.grants = work.grants.size();
            run.confirmed = work.confirmed.size();
            run.phantoms = work.phantoms();
        }
        return run;
    }

    /**
     * Three threads taking one lock (TTL 2 s, held ~2 ms) and entering the fenced resource with their numbers; a
     * producer pushing numbered messages one at a time; two consumers taking and acking. Every client through the
     * deployment's URL with a command timeout of 1 s, lock and queue with {@code replication}.
     */
    private static final class Workload implements AutoCloseable {
        /** A grant: its fencing number and when it was made. */
        record Grant(long number, long nanos) {
        }

        final List<Coordis> clients = new ArrayList<>();
        final FencedResource resource;
        final ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Long> lostGrants = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Long> notReplicated = new ConcurrentLinkedQueue<>();
        /** Confirmed pushes: id to when the push returned. */
        final Map<Integer, Long> confirmed = new ConcurrentHashMap<>();
        final Map<Integer, Integer> delivered = new ConcurrentHashMap<>();
        final AtomicInteger nextId = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        volatile boolean working = true;
        volatile boolean consuming = true;

        Workload(String uri, Replication replication, FencedResource resource) throws InterruptedException {
            this.resource = resource;
            DistributedLock lock = connect(uri).lock(LOCK, LockOptions.defaults()
                    .withTtl(Duration.ofSeconds(2)).withReplication(replication));
            QueueOptions q = QueueOptions.defaults().withHeartbeatTtl(Duration.ofSeconds(1))
                    .withSweepInterval(Duration.ofMillis(250)).withReplication(replication);
            ReliableQueue producerQueue = connect(uri).reliableQueue(QUEUE, q);
            ReliableQueue consumerQueue = connect(uri).reliableQueue(QUEUE, q);
            for (int t = 0; t < 3; t++) {
                String name = "w" + t;
                start(() -> lockLoop(lock, name));
            }
            start(() -> produce(producerQueue));
            for (int c = 0; c < 2; c++) {
                start(() -> consume(consumerQueue));
            }
        }

        private Coordis connect(String uri) {
            Coordis c = TestClients.builder().url(uri).commandTimeout(Duration.ofSeconds(1)).connect();
            clients.add(c);
            return c;
        }

        private interface Body {
            void run() throws InterruptedException;
        }

        private void start(Body body) {
            Thread t = new Thread(() -> {
                try {
                    body.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }

        private void lockLoop(DistributedLock lock, String name) throws InterruptedException {
            while (working) {
                try {
                    Optional<Lease> got = lock.acquire(Duration.ofSeconds(2));
                    if (got.isEmpty()) {
                        continue;
                    }
                    Lease lease = got.get();
                    long n = lease.fencingToken();
                    grants.add(new Grant(n, System.nanoTime()));
                    resource.enter(name, n);
                    resource.write(name, n);
                    Thread.sleep(2);
                    resource.exit(name, n);
                    try {
                        if (!lease.release()) {
                            lostGrants.add(System.nanoTime()); // held 2 ms of a 2 s TTL: the grant was gone
                        }
                    } catch (CoordisException e) {
                        // unknown: the failover cut the release off
                    }
                } catch (NotReplicatedException e) {
                    notReplicated.add(System.nanoTime());
                    Thread.sleep(20);
                } catch (CoordisException e) {
                    Thread.sleep(20);
                }
            }
        }

        private void produce(ReliableQueue queue) throws InterruptedException {
            while (working) {
                int id = nextId.getAndIncrement();
                try {
                    queue.push(Integer.toString(id).getBytes(StandardCharsets.UTF_8));
                    confirmed.put(id, System.nanoTime());
                } catch (NotReplicatedException e) {
                    notReplicated.add(System.nanoTime()); // in the queue, unconfirmed: not counted if lost
                } catch (CoordisException e) {
                    Thread.sleep(20); // in or not: unknown, not counted
                }
                Thread.sleep(2);
            }
        }

        private void consume(ReliableQueue queue) throws InterruptedException {
            Consumer consumer = null;
            while (consumer == null && consuming) {
                try {
                    consumer = queue.consumer();
                } catch (CoordisException e) {
                    Thread.sleep(100);
                }
            }
            while (consuming) {
                try {
                    List<Delivery> batch = consumer.take(8, Duration.ofMillis(200));
                    for (Delivery d : batch) {
                        delivered.merge(Integer.parseInt(d.text()), 1, Integer::sum);
                    }
                    if (!batch.isEmpty()) {
                        consumer.ack(batch);
                    }
                } catch (CoordisException e) {
                    Thread.sleep(50);
                }
            }
            try {
                consumer.close();
            } catch (CoordisException e) {
                // its heartbeat expires on its own
            }
        }

        /** Fenced violations, regressions and overlaps so far. */
        long[] snapshot() {
            FencedResource.Report r = resource.report();
            return new long[] {r.violations(), r.fenceRegressions(), r.overlaps()};
        }

        /** Stops the lock and the producer, lets the consumers drain what is left (at most 60 s), stops them. */
        void stop() throws InterruptedException {
            working = false;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            long quietSince = System.nanoTime();
            int seen = -1;
            while (System.nanoTime() < deadline && System.nanoTime() - quietSince < Duration.ofSeconds(10).toNanos()) {
                if (delivered.size() != seen) {
                    seen = delivered.size();
                    quietSince = System.nanoTime();
                }
                if (delivered.keySet().containsAll(confirmed.keySet())) {
                    break;
                }
                Thread.sleep(200);
            }
            consuming = false;
            for (Thread t : threads) {
                t.join(10_000);
            }
        }

        /** Grants in [from, to) whose number an earlier grant had. */
        long numbersTwiceBetween(long from, long to) {
            Map<Long, Boolean> seen = new java.util.HashMap<>();
            long n = 0;
            for (Grant g : grants) {
                if (seen.put(g.number(), true) != null && g.nanos() >= from && g.nanos() < to) {
                    n++;
                }
            }
            return n;
        }

        long lostGrantsBetween(long from, long to) {
            return lostGrants.stream().filter(t -> t >= from && t < to).count();
        }

        long notReplicatedBetween(long from, long to) {
            return notReplicated.stream().filter(t -> t >= from && t < to).count();
        }

        /** Confirmed pushes never delivered, pushed after {@code after} and before the failover at {@code start}. */
        long lostPushedBefore(long start, long after) {
            return confirmed.entrySet().stream().filter(e -> e.getValue() < start && e.getValue() >= after
                    && !delivered.containsKey(e.getKey())).count();
        }

        long deliveredTwice() {
            return delivered.values().stream().filter(v -> v > 1).count();
        }

        long phantoms() {
            int next = nextId.get();
            return delivered.keySet().stream().filter(id -> id < 0 || id >= next).count();
        }

        @Override
        public void close() {
            working = false;
            consuming = false;
            for (Coordis c : clients) {
                c.close();
            }
        }
    }
}
