package io.coordis.soak;

import io.coordis.safety.FenceWorker;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RedisServerBuilder;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.fault.NetworkNamespace;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.LeaderChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The single-node lock and the lease election under {@code soak.minutes} (default 60) of random faults from
 * one seeded nemesis: Redis killed -9 and restarted ({@code appendfsync always}), SIGSTOPped, CLIENT-PAUSEd and
 * partitioned (it runs in a network namespace when root can make one), the proxy in front of it slowed and
 * blackholed, and client JVMs SIGSTOPped (a holder or leader paused past its lease). Two lock JVMs with four
 * threads each write to one fenced resource with their fencing tokens; two candidate JVMs write to another
 * with their terms and record their campaigns as histories.
 *
 * <p>Asserted: 0 fenced violations among lock holders and among leaders (no token or term written by two
 * clients); one leader per term and terms rising in real-time order ({@link LeaderChecker}); the lock and the
 * election made progress after the last fault. Reported: faults by kind, acquisitions, unfenced overlaps per
 * 10,000 acquisitions (expected: paused holders), stale writes refused, acquire latency percentiles, and the
 * time from each healed fault to the next accepted write.
 */
class LockSoak {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration WAIT = Duration.ofSeconds(2);
    private static final Duration RESUME_BOUND = Duration.ofSeconds(10);
    private static final Pattern LOCK_STATS = Pattern.compile("STATS cycles=(\\d+) errors=(\\d+) late=(\\d+) maxLateMs=(-?\\d+)");
    private static final Pattern ELECTION_STATS = Pattern.compile("STATS elections=(\\d+) errors=(\\d+)");

    @TempDir
    Path dir;

    @Test
    void lockAndElectionStaySafeUnderRandomFaults() throws Exception {
        Duration duration = SoakSettings.lockDuration();
        long seed = SoakSettings.seed("LockSoak");
        SoakReport report = new SoakReport("LockSoak: single-node lock and lease election under the nemesis", seed);
        String noNamespace = NetworkNamespace.unavailableReason();
        List<ChildJvm> lockers = new ArrayList<>();
        List<ChildJvm> candidates = new ArrayList<>();
        try (NetworkNamespace ns = noNamespace == null ? NetworkNamespace.create() : null;
             RedisServer redis = server(ns);
             FaultProxy proxy = FaultProxy.to(redis);
             FencedResource locks = FencedResource.start();
             FencedResource leaders = FencedResource.start()) {
            for (String name : List.of("a", "b")) {
                lockers.add(ChildJvm.start(name, FenceWorker.class, List.of(proxy.address(), locks.address(), "soak:lock",
                        "coordis", "4", Long.toString(TTL.toMillis()), Long.toString(WAIT.toMillis()), name,
                        dir.resolve(name + ".latencies").toString())));
            }
            for (String id : List.of("c1", "c2")) {
                candidates.add(ChildJvm.start(id, SoakCandidate.class, List.of(proxy.address(), "soak:election", id,
                        Long.toString(TTL.toMillis()), dir.resolve(id + ".jsonl").toString(), leaders.address(),
                        Long.toString(seed))));
            }
            List<ChildJvm> everyone = new ArrayList<>(lockers);
            everyone.addAll(candidates);
            for (ChildJvm c : everyone) {
                c.awaitLine("READY", Duration.ofSeconds(60));
            }

            Set<Nemesis.Kind> kinds = EnumSet.of(Nemesis.Kind.KILL_RESTART, Nemesis.Kind.PAUSE, Nemesis.Kind.CLIENT_PAUSE,
                    Nemesis.Kind.LATENCY, Nemesis.Kind.BLACKHOLE, Nemesis.Kind.STOP_CLIENT, Nemesis.Kind.LOST_REPLY);
            if (ns != null) {
                kinds.add(Nemesis.Kind.PARTITION);
            }
            long started = System.nanoTime();
            List<Nemesis.Event> events = run(Nemesis.builder(seed).servers(List.of(redis)).proxies(List.of(proxy))
                    .namespaces(ns == null ? List.of() : List.of(ns))
                    .clientPids(() -> everyone.stream().filter(ChildJvm::isAlive).map(ChildJvm::pid).toList())
                    .kinds(kinds).gap(Duration.ofMillis(1500), Duration.ofMillis(2500))
                    .hold(Duration.ofMillis(300), Duration.ofMillis(1200)).restartDelay(Duration.ofMillis(500)).build(),
                    duration, locks, leaders);
            Duration ran = Duration.ofNanos(System.nanoTime() - started);
            long lastHealed = events.isEmpty() ? started : events.get(events.size() - 1).healedNanos();
            boolean locksResumed = awaitWriteAfter(locks, lastHealed);
            boolean leadersResumed = awaitWriteAfter(leaders, lastHealed);
            Samples lockRecovery = new Samples();
            Samples leaderRecovery = new Samples();
            for (Nemesis.Event e : events) {
                recovery(locks, e, lockRecovery);
                recovery(leaders, e, leaderRecovery);
            }
            ClientStats stats = stop(lockers, candidates);
            long cycles = stats.cycles();
            Samples acquire = new Samples();
            for (String name : List.of("a", "b")) {
                readLatencies(dir.resolve(name + ".latencies"), acquire);
            }
            FencedResource.Report l = locks.report();
            FencedResource.Report e = leaders.report();
            LeaderChecker.Result elections = LeaderChecker.check(Histories.read(dir));

            Map<Nemesis.Kind, Long> byKind = events.stream()
                    .collect(Collectors.groupingBy(Nemesis.Event::kind, TreeMap::new, Collectors.counting()));
            report.figure("duration", SoakReport.duration(ran) + " of nemesis (soak.minutes=" + duration.toSeconds() / 60.0 + ")")
                    .figure("faults injected", events.size() + ": " + byKind)
                    .figure("partitions", ns != null ? "yes (Redis in a network namespace)" : "left out: " + noNamespace)
                    .figure("lock acquisitions (entered the resource)", SoakReport.count(l.totalEnters()))
                    .figure("lock cycles completed / calls failed by Redis and retried", SoakReport.count(cycles) + " / "
                            + SoakReport.count(stats.errors()))
                    .figure("lock fenced violations", l.violations())
                    .figure("lock unfenced overlaps", l.overlaps() + " (" + SoakReport.rate(l.overlaps(), l.totalEnters(), 10_000)
                            + " per 10k acquisitions)")
                    .figure("lock stale writes refused by the fence", SoakReport.count(l.staleRejections()))
                    .figure("acquire latency (successful calls)", acquire.summary())
                    .figure("acquire calls returning > 1 s after their wait", stats.late() + " (latest " + stats.maxLateMs() + " ms over)")
                    .figure("healed fault to next accepted lock write", lockRecovery.summary())
                    .figure("elections", SoakReport.count(elections.elections()) + " (campaigns failed by Redis: "
                            + stats.campaignErrors() + ")")
                    .figure("terms with two leaders / term regressions", elections.sharedTerms() + " / " + elections.regressions())
                    .figure("leader fenced violations", e.violations())
                    .figure("leaders overlapping (a leader entered while another was inside)", e.overlaps() + " ("
                            + SoakReport.rate(e.overlaps(), e.totalEnters(), 10_000) + " per 10k elections)")
                    .figure("leader writes accepted / refused as stale", SoakReport.count(e.accepted()) + " / "
                            + SoakReport.count(e.staleRejections()))
                    .figure("healed fault to next accepted leader write", leaderRecovery.summary());
            report.check("0 fenced violations among lock holders", l.violations() == 0)
                    .check("0 fenced violations among leaders (no term written by two leaders)", e.violations() == 0)
                    .check("one leader per term and terms rising in real-time order (election histories)", elections.valid())
                    .check("the fenced resources saw no malformed or unpaired requests",
                            l.protocolErrors() == 0 && e.protocolErrors() == 0)
                    .check("the lock and the election made progress, also within " + RESUME_BOUND.toSeconds()
                            + " s of the last fault being healed", cycles > 0 && elections.elections() > 0 && locksResumed
                            && leadersResumed);
            report.note("Overlaps are what a resource without fencing would suffer: a holder or leader SIGSTOPped past its"
                    + " lease (STOP_CLIENT) is still inside when the next one enters; the fence refuses its late writes (stale)."
                    + " Recovery is the time from a fault being healed to the next write the resource accepted.");
            if (!l.notes().isEmpty() || !e.notes().isEmpty() || !elections.examples().isEmpty()) {
                report.note("First anomalies: lock " + l.notes().stream().limit(3).toList() + "; leaders "
                        + e.notes().stream().limit(3).toList() + "; election histories " + elections.examples());
            }
            report.keepEvidence(dir, events.stream().map(ev -> ev.kind() + " " + ev.target() + " held "
                    + ev.held().toMillis() + " ms").toList(), false);
            report.write();

            assertThat(l.violations()).as("lock fenced violations (seed " + seed + "): " + l).isZero();
            assertThat(e.violations()).as("leader fenced violations (seed " + seed + "): " + e).isZero();
            assertThat(elections.valid()).as("election histories (seed " + seed + "): " + elections).isTrue();
            assertThat(l.protocolErrors() + e.protocolErrors()).as("protocol errors: " + l + " " + e).isZero();
            assertThat(cycles).as("lock cycles").isPositive();
            assertThat(elections.elections()).as("elections").isPositive();
            assertThat(locksResumed).as("lock writes within " + RESUME_BOUND + " of the last fault").isTrue();
            assertThat(leadersResumed).as("leader writes within " + RESUME_BOUND + " of the last fault").isTrue();
        } finally {
            lockers.forEach(ChildJvm::close);
            candidates.forEach(ChildJvm::close);
        }
    }

    /** What the client JVMs counted: lock cycles, failed calls, late acquire calls, failed campaigns. */
    private record ClientStats(long cycles, long errors, long late, long maxLateMs, long campaignErrors) {
    }

    /** Runs the nemesis for {@code duration}, printing progress every minute; answers the faults it applied. */
    private static List<Nemesis.Event> run(Nemesis built, Duration duration, FencedResource locks, FencedResource leaders)
            throws InterruptedException {
        long started = System.nanoTime();
        try (Nemesis nemesis = built) {
            nemesis.start(duration);
            long deadline = started + duration.plusMinutes(2).toNanos();
            while (!nemesis.await(Duration.ofSeconds(60))) {
                FencedResource.Report l = locks.report();
                FencedResource.Report e = leaders.report();
                System.out.printf("LockSoak: %s of %s, %d faults, lock writes %d (violations %d), leader writes %d"
                                + " (violations %d)%n", SoakReport.duration(Duration.ofNanos(System.nanoTime() - started)),
                        SoakReport.duration(duration), nemesis.events().size(), l.accepted(), l.violations(), e.accepted(),
                        e.violations());
                assertThat(System.nanoTime()).as("the nemesis ends within its duration + 2 min").isLessThan(deadline);
            }
            return nemesis.events();
        }
    }

    /** Closes the clients' stdin and reads the counts each prints before it exits. */
    private static ClientStats stop(List<ChildJvm> lockers, List<ChildJvm> candidates) throws InterruptedException {
        long cycles = 0;
        long errors = 0;
        long late = 0;
        long maxLate = 0;
        for (ChildJvm c : lockers) {
            c.closeInput();
            Matcher m = LOCK_STATS.matcher(c.awaitLine("STATS", Duration.ofSeconds(30)));
            assertThat(m.find()).as(c.describe()).isTrue();
            cycles += Long.parseLong(m.group(1));
            errors += Long.parseLong(m.group(2));
            late += Long.parseLong(m.group(3));
            maxLate = Math.max(maxLate, Long.parseLong(m.group(4)));
        }
        long campaignErrors = 0;
        for (ChildJvm c : candidates) {
            c.closeInput();
            Matcher m = ELECTION_STATS.matcher(c.awaitLine("STATS", Duration.ofSeconds(30)));
            assertThat(m.find()).as(c.describe()).isTrue();
            campaignErrors += Long.parseLong(m.group(2));
        }
        return new ClientStats(cycles, errors, late, maxLate, campaignErrors);
    }

    private static RedisServer server(NetworkNamespace ns) {
        RedisServerBuilder b = RedisServer.builder().appendOnly(true).appendFsync("always");
        return (ns != null ? b.namespace(ns) : b).start();
    }

    private static boolean awaitWriteAfter(FencedResource resource, long nanos) throws InterruptedException {
        long deadline = nanos + RESUME_BOUND.toNanos();
        while (resource.firstAcceptAfter(nanos) < 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    private static void recovery(FencedResource resource, Nemesis.Event e, Samples into) {
        long first = resource.firstAcceptAfter(e.healedNanos());
        if (first >= 0) {
            into.add(first - e.healedNanos());
        }
    }

    private static void readLatencies(Path file, Samples into) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                into.add(in.readLong());
            }
        } catch (EOFException end) {
            // all read
        }
    }
}
