package io.coordis.soak;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespException;
import io.coordis.testkit.SentinelGroup;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.fault.ReplicationCut;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.History;
import io.coordis.testkit.history.SignalChecker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Failovers of a replicated deployment, while locks, a reliable queue and signals keep working through its URL
 * ({@link ReplicatedWorkload}): a master with one replica watched by three sentinels ({@link #sentinel()}), or a
 * Redis Cluster of three masters with a replica each, failing over the master of the queue's slot
 * ({@link #cluster()}). The failovers (the workload's own faults) alternate between the manual one
 * ({@code SENTINEL FAILOVER}, {@code CLUSTER FAILOVER} on the replica) and a kill -9 of the master (restarted
 * afterwards, it rejoins as a replica), the seed choosing which comes first, each after 5-15 s of quiet with the
 * replicas in sync; up to {@code count} of them, or until the run's end.
 *
 * <p>What Coordis promises on Sentinel and Cluster (README, docs/safety.md "Soak"): clients follow the master the
 * deployment names; replication is asynchronous, so a failover may lose the latest lock grants (a fencing number handed out
 * again: a fenced violation) and queue messages; signal subscriptions lost in a failover are reported as gaps.
 * So this checks: every signal missed was covered by a reported gap; nothing delivered that was not pushed;
 * no fenced violation before the first failover; and after every failover the lock, the queue and the signals
 * resumed within 60 s. It counts, per failover and without failing on them, fenced violations, overlaps and
 * messages lost, and reports the time to resume.
 */
final class Failovers implements Workload {
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    private static final Duration RESUME_BOUND = Duration.ofSeconds(60);
    private static final Duration HEALTHY_BOUND = Duration.ofSeconds(120);
    private static final Duration CLUSTER_NODE_TIMEOUT = Duration.ofSeconds(5);

    /** One failover and what the workload saw around it; times in ms from the provocation, -1 for never. */
    private record Failover(int n, boolean killed, String from, String to, long promotedMs, long demotedMs, long acquireMs,
                            long fenceMs, long queueMs, long signalMs, long startNanos, int mark) {
        boolean resumed() {
            return acquireMs >= 0 && fenceMs >= 0 && queueMs >= 0 && signalMs >= 0;
        }
    }

    private final String name;
    private final Path dir;
    private final int count;
    private final boolean untilCount;
    private final List<Failover> failovers = Collections.synchronizedList(new ArrayList<>());
    private final List<FencedResource.Report> before = Collections.synchronizedList(new ArrayList<>());
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final Deployment deployment;
    private FencedResource resource;
    private ReplicatedWorkload work;
    private volatile boolean done;
    private long begin;

    /** A replicated deployment the failovers are provoked on. */
    interface Deployment extends AutoCloseable {
        /** Starts it; answers the URL clients connect with. */
        String start();

        /** What a manual failover is called ({@code SENTINEL FAILOVER}). */
        String manual();

        /** What the failover after a kill -9 of the master is called. */
        default String kill() {
            return "kill -9";
        }

        /** How far behind the replica is made before each failover, as words to append; empty when in sync. */
        default String holdBack() {
            return "";
        }

        /** How a failover was made, for the tables: the kind, and how far behind the replica was. */
        default String how(boolean killed) {
            return (killed ? kill() : manual()) + holdBack();
        }

        /** Blocks until a writable master has its replicas in sync, seen healthy by the deployment. */
        void awaitHealthy() throws InterruptedException;

        /** The master the next failover takes down. */
        RedisServer master();

        /**
         * How long after a failover the one after next (which fails over the same pair again) must wait: a cluster
         * master does not vote for a replica of a master it voted on within twice the node timeout.
         */
        default Duration voteGap() {
            return Duration.ZERO;
        }

        /** Where the queue's keys are now, to read what is left at the end. */
        RedisServer queueMaster();

        /** Kills {@code old} (kill -9) or asks for a manual failover; answers the promoted replica once it serves. */
        RedisServer failover(RedisServer old, boolean kill) throws InterruptedException;
    }

    /** A master with one replica watched by three sentinels, reached by its {@code redis-sentinel://} URL. */
    static Deployment sentinel() {
        return new Deployment() {
            private SentinelGroup group;

            @Override
            public String start() {
                group = SentinelGroup.start(1, 3);
                return group.sentinelUri();
            }

            @Override
            public String manual() {
                return "SENTINEL FAILOVER";
            }

            @Override
            public void awaitHealthy() throws InterruptedException {
                Failovers.awaitHealthy(group);
            }

            @Override
            public RedisServer master() {
                return group.master();
            }

            @Override
            public RedisServer queueMaster() {
                return group.master();
            }

            @Override
            public RedisServer failover(RedisServer old, boolean kill) throws InterruptedException {
                if (kill) {
                    old.kill();
                } else {
                    sentinelFailover(group);
                }
                return group.awaitFailover(old, FAILOVER_BOUND);
            }

            @Override
            public void close() {
                if (group != null) {
                    group.close();
                }
            }
        };
    }

    /**
     * A Redis Cluster of three masters with a replica each ({@code appendfsync always}); failovers take down the
     * master of the queue's slot, and after a kill -9 its replica is promoted with {@code CLUSTER FAILOVER FORCE}.
     */
    static Deployment cluster() {
        return cluster(Prefixed.key(ReplicatedWorkload.QUEUE));
    }

    /** {@link #cluster()}, failing over the master of {@code key}'s slot (the key as stored, with the prefix). */
    static Deployment cluster(String key) {
        return cluster(key, Duration.ZERO);
    }

    /**
     * {@link #cluster(String)} with the replica behind: each failover first holds the master's replication stream
     * back for {@code holdBack} ({@link ReplicationCut}) while the master keeps serving, as a lagging or cut-off
     * replica would be, then kills the master and forces the replica's promotion, or promotes the replica with
     * {@code CLUSTER FAILOVER TAKEOVER} (a coordinated {@code CLUSTER FAILOVER} waits for the replica to catch up,
     * which it cannot). What the master accepted meanwhile is lost, unless it waited for the replica. Zero: no
     * hold-back, the manual failover is the coordinated one.
     */
    static Deployment cluster(String key, Duration holdBack) {
        boolean behind = !holdBack.isZero();
        return new Deployment() {
            private RedisCluster cluster;

            @Override
            public String start() {
                cluster = RedisCluster.builder().masters(3).replicasPerMaster(1).nodeTimeout(CLUSTER_NODE_TIMEOUT)
                        .template(RedisServer.builder().appendOnly(true).appendFsync("always")).start();
                return cluster.uri();
            }

            @Override
            public String manual() {
                return behind ? "CLUSTER FAILOVER TAKEOVER" : "CLUSTER FAILOVER";
            }

            @Override
            public String kill() {
                return behind ? "kill -9, FORCE" : Deployment.super.kill();
            }

            @Override
            public String holdBack() {
                return behind ? ", the replica " + holdBack.toMillis() + " ms behind" : "";
            }

            @Override
            public void awaitHealthy() throws InterruptedException {
                long deadline = System.nanoTime() + HEALTHY_BOUND.toNanos();
                String last = "";
                while (System.nanoTime() < deadline) {
                    try {
                        cluster.awaitOk(HEALTHY_BOUND);
                        RedisServer m = queueMaster();
                        List<RedisServer> replicas = cluster.replicasOf(m);
                        if (!replicas.isEmpty() && replicas.stream().allMatch(r -> "up".equals(
                                r.info("replication").get("master_link_status")))) {
                            return;
                        }
                        last = "master " + m.address() + ", replicas " + replicas;
                    } catch (RuntimeException e) {
                        last = e.toString();
                    }
                    Thread.sleep(100);
                }
                throw new AssertionError("the cluster did not become healthy within " + HEALTHY_BOUND + ": " + last);
            }

            @Override
            public RedisServer master() {
                return queueMaster();
            }

            @Override
            public Duration voteGap() {
                return CLUSTER_NODE_TIMEOUT.multipliedBy(2).plusSeconds(1);
            }

            @Override
            public RedisServer queueMaster() {
                return cluster.masterForKey(key);
            }

            @Override
            public RedisServer failover(RedisServer old, boolean kill) throws InterruptedException {
                RedisServer replica = cluster.replicasOf(old).get(0);
                if (!behind) {
                    if (kill) {
                        old.kill();
                    }
                    cluster.failover(replica, kill); // FORCE: the killed master cannot agree
                    return replica;
                }
                try (ReplicationCut cut = ReplicationCut.of(old)) {
                    Thread.sleep(holdBack.toMillis());
                    if (kill) {
                        old.kill();
                        cluster.failover(replica, true);
                    } else {
                        cluster.takeover(replica);
                    }
                } // lets the stream through only once the promoted replica has closed its link
                return replica;
            }

            @Override
            public void close() {
                if (cluster != null) {
                    cluster.close();
                }
            }
        };
    }

    /** @param untilCount true: done after {@code count} failovers; false: failovers until the run's end */
    Failovers(String name, Deployment deployment, Path dir, int count, boolean untilCount) {
        this.name = name;
        this.deployment = deployment;
        this.dir = dir;
        this.count = count;
        this.untilCount = untilCount;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start() throws Exception {
        Files.createDirectories(dir);
        begin = System.nanoTime();
        String uri = deployment.start();
        keep(deployment);
        resource = keep(FencedResource.start());
        History sender = keep(History.open(dir.resolve("sender.jsonl"), "sender"));
        History listener = keep(History.open(dir.resolve("listener.jsonl"), "listener"));
        work = keep(ReplicatedWorkload.start(uri, resource, sender, listener));
    }

    private <T extends AutoCloseable> T keep(T t) {
        closing.add(t);
        return t;
    }

    @Override
    public boolean done() {
        return done;
    }

    @Override
    public String progress() {
        return failovers.size() + " failovers, lock violations " + resource.report().violations();
    }

    @Override
    public void disturb(long end, Random random) throws Exception {
        boolean killFirst = random.nextBoolean();
        List<Long> settledAt = new ArrayList<>();
        for (int n = 1; untilCount ? n <= count : System.nanoTime() < end; n++) {
            deployment.awaitHealthy();
            Thread.sleep(5000 + random.nextInt(10_000));
            awaitVoteGap(deployment, settledAt);
            if (!untilCount && System.nanoTime() >= end) {
                break;
            }
            RedisServer old = deployment.master();
            boolean kill = (n % 2 == 1) == killFirst; // the two kinds take turns
            before.add(resource.report());
            long start = System.nanoTime();
            int mark = work.pushed();
            RedisServer promoted = deployment.failover(old, kill);
            long promotedAt = System.nanoTime();
            long settled = kill ? promotedAt : awaitDemoted(old, promotedAt);
            settledAt.add(settled);
            if (kill) {
                old.restart(Duration.ZERO); // comes back as a master; the sentinels turn it into a replica
            }
            long[] resumed = work.awaitResumedAfter(settled, RESUME_BOUND);
            Failover f = new Failover(n, kill, old.address(), promoted.address(), ms(promotedAt - start),
                    ms(settled - start), sinceStart(resumed[0], start), sinceStart(resumed[1], start),
                    sinceStart(resumed[2], start), sinceStart(resumed[3], start), start, mark);
            failovers.add(f);
            System.out.println(name + ": " + f);
            if (!f.resumed()) {
                System.out.println(name + ": not resumed after failover " + n + "; the workload's threads:\n" + threadDump());
            }
        }
        done = true;
    }

    @Override
    public void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception {
        Thread.sleep(5000);
        work.stopAndDrain(Duration.ofMinutes(2), deployment::queueMaster);
        report(report, work, resource.report(), List.copyOf(before), List.copyOf(failovers), untilCount ? count : -1, begin);
    }

    @Override
    public void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private void report(SoakReport report, ReplicatedWorkload work, FencedResource.Report lock, List<FencedResource.Report> before,
                        List<Failover> failovers, int count, long begin) {
        SignalChecker.Result signals = SignalChecker.check(Histories.read(dir));
        List<Integer> lost = work.lostIds();
        int[] lostPer = new int[failovers.size()];
        for (int id : lost) {
            int nearest = 0;
            for (int i = 1; i < failovers.size(); i++) {
                if (Math.abs(failovers.get(i).mark() - id) < Math.abs(failovers.get(nearest).mark() - id)) {
                    nearest = i;
                }
            }
            if (!failovers.isEmpty()) {
                lostPer[nearest]++;
            }
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("#", "how", "old -> new master", "new master agreed", "old master demoted", "lock acquired",
                "fenced write accepted", "message delivered", "signal heard", "fenced violations", "overlaps",
                "stale writes refused", "messages lost", "signal gaps"));
        boolean allResumed = true;
        long killed = failovers.stream().filter(Failover::killed).count();
        Samples acquireResume = new Samples();
        Samples lockResume = new Samples();
        Samples queueResume = new Samples();
        Samples signalResume = new Samples();
        Samples promotion = new Samples();
        for (int i = 0; i < failovers.size(); i++) {
            Failover f = failovers.get(i);
            FencedResource.Report from = before.get(i);
            FencedResource.Report to = i + 1 < before.size() ? before.get(i + 1) : lock;
            long end = i + 1 < failovers.size() ? failovers.get(i + 1).startNanos() : Long.MAX_VALUE;
            allResumed &= f.resumed();
            add(acquireResume, f.acquireMs());
            add(lockResume, f.fenceMs());
            add(queueResume, f.queueMs());
            add(signalResume, f.signalMs());
            add(promotion, f.promotedMs());
            rows.add(List.of(Integer.toString(f.n()), deployment.how(f.killed()), f.from() + " -> " + f.to(),
                    f.promotedMs() + " ms", f.killed() ? "(killed)" : f.demotedMs() + " ms", shown(f.acquireMs()),
                    shown(f.fenceMs()), shown(f.queueMs()), shown(f.signalMs()),
                    Long.toString(to.violations() - from.violations()), Long.toString(to.overlaps() - from.overlaps()),
                    Long.toString(to.staleRejections() - from.staleRejections()), Integer.toString(lostPer[i]),
                    Long.toString(work.gapsBetween(f.startNanos(), end))));
        }
        long violationsBeforeFirst = before.isEmpty() ? lock.violations() : before.get(0).violations();
        Map<String, Long> queue = work.queueFigures();
        long pushed = work.pushed();
        report.figure("failovers", failovers.size() + (count > 0 ? " of " + count + " (soak.failovers)" : " (until the end)") + ": " + (failovers.size() - killed)
                        + " " + deployment.manual() + ", " + killed + " kill -9 of the master")
                .figure("provocation to a writable new master agreed on (sentinels; every cluster node)", promotion.summary())
                .figure("provocation to the next lock acquired", acquireResume.summary())
                .figure("provocation to the next fenced write accepted", lockResume.summary())
                .figure("provocation to the next message delivered", queueResume.summary())
                .figure("provocation to the next signal heard", signalResume.summary())
                .figure("lock acquisitions (entered the resource)", SoakReport.count(lock.totalEnters()))
                .figure("lock fenced violations (all / before the first failover)", lock.violations() + " / " + violationsBeforeFirst)
                .figure("lock unfenced overlaps", lock.overlaps() + " (" + SoakReport.rate(lock.overlaps(), lock.totalEnters(), 10_000)
                        + " per 10k acquisitions)")
                .figure("lock stale writes refused by the fence", SoakReport.count(lock.staleRejections()))
                .figure("acquire latency (successful calls)", work.acquireLatency().summary())
                .figure("messages pushed / lost", SoakReport.count(pushed) + " / " + lost.size() + " ("
                        + SoakReport.rate(lost.size(), pushed, 1_000_000) + " per million, "
                        + SoakReport.rate(lost.size(), Math.max(1, failovers.size()), 1) + " per failover)")
                .figure("duplicates", SoakReport.count(queue.get("duplicates")) + " ("
                        + SoakReport.rate(queue.get("duplicates"), pushed, 1_000_000) + " per million)")
                .figure("left waiting / in processing lists at the end", queue.get("left") + " / " + queue.get("stuck"))
                .figure("signals sent / heard / missed, each covered by a gap / silently missed",
                        SoakReport.count(signals.sent()) + " / " + SoakReport.count(signals.heard()) + " / "
                                + signals.missedWithGap() + " / " + signals.silentlyMissed())
                .figure("signal gap rate", SoakReport.rate(signals.missedWithGap(), signals.sent(), 1000)
                        + " missed per 1,000 sent; " + work.gaps() + " gaps reported")
                .figure("signals heard twice (breaks at-most-once delivery; reported, not asserted yet)", signals.duplicates());
        report.table(rows);
        report.check("every signal missed was covered by a gap the library reported, none heard that nobody sent",
                        signals.silentlyMissed() == 0 && signals.phantoms() == 0)
                .check("nothing delivered that was not pushed", queue.get("phantoms") == 0)
                .check("0 fenced violations before the first failover (one master, nothing lost)", violationsBeforeFirst == 0)
                .check("after every failover the lock, the queue and the signals resumed within " + RESUME_BOUND.toSeconds()
                        + " s", allResumed && (count > 0 ? failovers.size() == count : !failovers.isEmpty()));
        report.note("Not asserted, as docs/safety.md says a failover may lose them: fenced violations (a fencing number the"
                + " old master handed out before the promoted replica had it), overlaps and lost messages. Each lost"
                + " message is counted for the failover whose start was nearest in push order. Times are from the"
                + " provocation; the workload's times count from the moment the old master stopped answering as master"
                + " (SENTINEL FAILOVER: it keeps serving its clients until the sentinels demote it, and what it accepts"
                + " meanwhile is lost; kill -9: from the promotion). A fenced write is accepted again only once the"
                + " promoted master's fencing counter has passed the highest number the resource accepted.");
        if (!signals.examples().isEmpty() || !lock.notes().isEmpty()) {
            report.note("Examples: signals " + signals.examples() + "; lock " + lock.notes().stream().limit(3).toList());
        }
        report.keepEvidence(dir, failovers.stream().map(Failover::toString).toList(), signals.duplicates() > 0);
    }

    /**
     * Before the next failover, which fails over the same pair as the one before last (they take turns): waits
     * until {@link Deployment#voteGap()} has passed since that one settled. {@code settled}: when each failover so
     * far settled, in order.
     */
    static void awaitVoteGap(Deployment deployment, List<Long> settled) throws InterruptedException {
        if (settled.size() >= 2) {
            long wait = settled.get(settled.size() - 2) + deployment.voteGap().toNanos() - System.nanoTime();
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(wait)));
        }
    }

    /** Blocks until the sentinels agree on a writable master whose replica is in sync and seen healthy by all. */
    private static void awaitHealthy(SentinelGroup group) throws InterruptedException {
        long deadline = System.nanoTime() + HEALTHY_BOUND.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            RedisServer m = group.awaitMaster(s -> true, HEALTHY_BOUND);
            try {
                boolean synced = group.servers().stream().filter(s -> s != m).allMatch(r -> r.isRunning()
                        && "slave".equals(r.info("replication").get("role"))
                        && "up".equals(r.info("replication").get("master_link_status"))
                        && Integer.toString(m.port()).equals(r.info("replication").get("master_port")));
                boolean seen = group.sentinels().stream().allMatch(s -> replicasHealthy(s.command("SENTINEL", "REPLICAS",
                        group.masterName())));
                if (synced && seen) {
                    return;
                }
                last = "master " + m.address() + ", replica in sync " + synced + ", seen healthy by every sentinel " + seen;
            } catch (RuntimeException e) {
                last = e.toString();
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the group did not become healthy within " + HEALTHY_BOUND + ": " + last);
    }

    private static boolean replicasHealthy(Object reply) {
        if (!(reply instanceof List<?> replicas) || replicas.isEmpty()) {
            return false;
        }
        for (Object r : replicas) {
            List<?> fields = (List<?>) r;
            for (int i = 0; i + 1 < fields.size(); i += 2) {
                String name = Watch.text(fields.get(i));
                String value = Watch.text(fields.get(i + 1));
                if ((name.equals("flags") && !value.equals("slave")) || (name.equals("master-link-status") && !value.equals("ok"))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** SENTINEL FAILOVER, asked again while a sentinel answers that it cannot yet (INPROG, NOGOODSLAVE). */
    private static void sentinelFailover(SentinelGroup group) throws InterruptedException {
        long deadline = System.nanoTime() + FAILOVER_BOUND.toNanos();
        while (true) {
            try {
                group.failover();
                return;
            } catch (RespException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    /** When the old master stopped being a writable master after a SENTINEL FAILOVER (it became a replica). */
    private static long awaitDemoted(RedisServer old, long from) throws InterruptedException {
        long deadline = from + FAILOVER_BOUND.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Object role = old.command("ROLE");
                if (!(role instanceof List<?> l) || !"master".equals(Watch.text(l.get(0)))) {
                    return System.nanoTime();
                }
            } catch (RuntimeException e) {
                return System.nanoTime();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the old master " + old.address() + " was still a master " + FAILOVER_BOUND
                + " after its replica was promoted");
    }

    /** The stacks of the soak's own threads and of Lettuce's, for a failover the workload did not come back from. */
    private static String threadDump() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("soak-") || t.getName().startsWith("lettuce-")) {
                b.append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement e : stack) {
                    b.append("    at ").append(e).append('\n');
                }
            }
        });
        return b.toString();
    }

    private static void add(Samples s, long ms) {
        if (ms >= 0) {
            s.add(TimeUnit.MILLISECONDS.toNanos(ms));
        }
    }

    private static String shown(long ms) {
        return ms < 0 ? "never" : ms + " ms";
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static long sinceStart(long at, long start) {
        return at < 0 ? -1 : ms(at - start);
    }
}
