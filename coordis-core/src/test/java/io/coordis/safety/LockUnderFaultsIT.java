package io.coordis.safety;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.fault.NetworkNamespace;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.History;
import io.coordis.testkit.history.LockChecker;
import io.coordis.testkit.history.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The single-node lock under combined faults, judged by a fenced resource: two client JVMs with four threads
 * each contend through a fault proxy while a seeded nemesis kills and restarts Redis ({@code appendfsync
 * always}), SIGSTOPs it, CLIENT-PAUSEs it, partitions it (it runs in a network namespace; nftables rules
 * drop its traffic), slows and blackholes the proxy and loses replies on their way back; then a holder JVM is
 * SIGSTOPped past its lease. The nemesis applies its kinds in seeded rounds, so every run applies each of the
 * seven at least once, which the test checks on the recorded events (and a reply was really dropped). Pass: 0 fenced violations; the paused holder's
 * late write is refused as stale and the overlap it caused is seen (proof that the pause bit); no acquire
 * call ends more than 1 s after its wait, whether it returns or throws; writes resume within 2 s of every
 * healed fault. Every client JVM also writes its history, which {@link LockChecker} judges after the run: 0
 * overlaps inside validity and 0 fence violations (tokens against real-time order), agreeing with the
 * resource's 0 violations, and unfenced overlaps (as acted out) only once the holder was paused. Negative
 * controls: the same resource and the same checker flag a lock without NX (overlaps) and holders that do not
 * pass their token (violations), and the workers count an acquire that throws 1.2 s after its wait as late.
 */
class LockUnderFaultsIT {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration WAIT = Duration.ofSeconds(2);
    private static final Pattern STATS =
            Pattern.compile("STATS cycles=(\\d+) errors=(\\d+) late=(\\d+) maxLateMs=(-?\\d+) lateThrown=(\\d+)");

    @TempDir
    Path dir;
    private static final Set<Nemesis.Kind> KINDS = EnumSet.of(Nemesis.Kind.KILL_RESTART, Nemesis.Kind.PAUSE,
            Nemesis.Kind.CLIENT_PAUSE, Nemesis.Kind.LATENCY, Nemesis.Kind.BLACKHOLE, Nemesis.Kind.PARTITION,
            Nemesis.Kind.LOST_REPLY);

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void noFencedViolationUnderCombinedFaultsAndAPausedHolderIsFencedOff() throws Exception {
        long seed = Nemesis.seedFromPropertyOrRandom();
        List<ChildJvm> children = new ArrayList<>();
        NetworkNamespace.requiredInCi("network namespaces (for partitions)");
        try (NetworkNamespace ns = NetworkNamespace.create();
             RedisServer redis = RedisServer.builder().namespace(ns).appendOnly(true).appendFsync("always").start();
             FaultProxy proxy = FaultProxy.to(redis);
             FencedResource resource = FencedResource.start()) {
            for (String name : List.of("a", "b")) {
                children.add(worker(name, proxy.address(), resource, "coordis", 4, "faults:lock", dir));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY", Duration.ofSeconds(30));
            }
            Nemesis.Event last;
            try (Nemesis nemesis = Nemesis.builder(seed).servers(List.of(redis)).proxies(List.of(proxy))
                    .namespaces(List.of(ns)).kinds(KINDS)
                    .gap(Duration.ofMillis(1500), Duration.ofMillis(2500)).hold(Duration.ofMillis(300), Duration.ofMillis(1200))
                    .restartDelay(Duration.ofMillis(500)).build()) {
                nemesis.start(Duration.ofSeconds(30)); // a round of all seven kinds takes 19-26 s
                assertThat(nemesis.await(Duration.ofSeconds(60))).as("nemesis finished").isTrue();
                List<Nemesis.Event> events = nemesis.events();
                System.out.println("seed " + seed + " faults: " + events.stream()
                        .map(e -> e.kind() + "@" + e.target() + " " + e.held().toMillis() + "ms").toList());
                assertThat(events.stream().map(Nemesis.Event::kind).collect(Collectors.toSet()))
                        .as("kinds of fault applied (seed " + seed + "), each at least once: " + events)
                        .contains(Nemesis.Kind.PAUSE, Nemesis.Kind.PARTITION, Nemesis.Kind.CLIENT_PAUSE)
                        .containsAll(KINDS);
                assertThat(proxy.droppedReplies()).as("replies lost on the way back (LOST_REPLY bit)").isPositive();
                Thread.sleep(3000);
                List<String> slow = new ArrayList<>();
                for (Nemesis.Event e : events) {
                    long first = resource.firstAcceptAfter(e.healedNanos());
                    long ms = first < 0 ? Long.MAX_VALUE : TimeUnit.NANOSECONDS.toMillis(first - e.healedNanos());
                    if (ms > 2000) {
                        slow.add(e.kind() + "@" + e.target() + ": " + (first < 0 ? "never" : ms + " ms"));
                    }
                }
                assertThat(slow).as("faults after whose healing writes took more than 2 s to resume (seed " + seed + ")")
                        .isEmpty();
                last = events.get(events.size() - 1);
            }

            // A holder paused past its lease: the others get in (an overlap an unfenced resource would
            // suffer), and its write after resuming is refused as stale.
            FencedResource.Report beforePause = resource.report();
            long holderStarted = History.nowMicros();
            ChildJvm holder = worker("holder", redis.address(), resource, "coordis", 1, "faults:lock", dir);
            children.add(holder);
            String holding = holder.awaitLine("HOLDING", Duration.ofSeconds(40));
            assertThat(holding).as(holder.describe()).isNotNull();
            holder.pause();
            Thread.sleep(TTL.multipliedBy(3).toMillis());
            holder.resume();
            holder.send("go");
            String wrote = holder.awaitLine("WROTE", Duration.ofSeconds(10));
            assertThat(wrote).as(holder.describe()).startsWith("WROTE stale");
            assertThat(holder.awaitExit(Duration.ofSeconds(10))).isTrue();

            for (ChildJvm c : children) {
                c.closeInput();
            }
            long cycles = 0;
            for (ChildJvm c : children.subList(0, 2)) {
                String stats = c.awaitLine("STATS", Duration.ofSeconds(20));
                assertThat(stats).as(c.describe()).isNotNull();
                Matcher m = STATS.matcher(stats);
                assertThat(m.find()).as(stats).isTrue();
                cycles += Long.parseLong(m.group(1));
                assertThat(Long.parseLong(m.group(3))).as("acquire calls that returned or threw > 1 s after their "
                        + "wait: " + stats + " (seed " + seed + ")").isZero();
            }
            FencedResource.Report r = resource.report();
            System.out.println("lock under faults (seed " + seed + "): cycles=" + cycles + " " + r);
            assertThat(r.violations()).as("fenced violations; " + r).isZero();
            assertThat(r.protocolErrors()).as("protocol errors; " + r).isZero();
            assertThat(r.overlaps() - beforePause.overlaps()).as("overlaps while the holder was paused past its lease")
                    .isPositive();
            assertThat(r.staleRejections()).as("stale writes refused").isPositive();
            assertThat(cycles).as("lock cycles completed").isGreaterThan(100);
            assertThat(last).isNotNull();

            List<Op> ops = Histories.read(dir);
            LockChecker.Result workers = LockChecker.check(ops.stream().filter(o -> !o.process().equals("holder")).toList(), TTL);
            LockChecker.Result all = LockChecker.check(ops, TTL);
            System.out.println("lock histories (seed " + seed + "): workers " + workers + "; with the paused holder " + all);
            assertThat(ops.stream().filter(o -> o.micros() < holderStarted && o.is("ok", "acquire")).count())
                    .as("holdings recorded under faults").isGreaterThan(100);
            assertThat(all.fenceViolations()).as("fence violations in the histories (seed " + seed + "): %s", all.examples())
                    .isZero();
            assertThat(all.fenceViolations() == 0).as("the checker and the fenced resource agree on violations = 0; "
                    + all + " / " + r).isEqualTo(r.violations() == 0);
            assertThat(all.overlaps()).as("overlaps inside validity (seed " + seed + "): %s", all.examples()).isZero();
            assertThat(all.unfencedOverlaps() - workers.unfencedOverlaps())
                    .as("unfenced overlaps with the holder paused past its lease, in the histories").isPositive();
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void negativeControlsALockWithoutNxOverlapsAndUnfencedHoldersViolate() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            FencedResource.Report noNx = run(redis, "no-nx");
            LockChecker.Result noNxHistory = LockChecker.check(Histories.read(dir.resolve("no-nx")), TTL);
            System.out.println("negative control, lock without NX: " + noNx + "; histories " + noNxHistory);
            assertThat(noNx.overlaps()).as("a lock without NX must let holders overlap; " + noNx).isPositive();
            assertThat(noNxHistory.overlaps()).as("the checker sees them in the histories; " + noNxHistory).isPositive();
            FencedResource.Report noFence = run(redis, "no-fence");
            LockChecker.Result noFenceHistory = LockChecker.check(Histories.read(dir.resolve("no-fence")), TTL);
            System.out.println("negative control, holders without tokens: " + noFence + "; histories " + noFenceHistory);
            assertThat(noFence.violations()).as("writes without a token must be flagged; " + noFence).isPositive();
            assertThat(noFenceHistory.fenceViolations()).as("the checker flags them too; " + noFenceHistory).isPositive();
            assertThat(noFence.overlaps()).as("the real lock still excludes; " + noFence).isZero();
            assertThat(noFenceHistory.overlaps()).as("the real lock still excludes; " + noFenceHistory).isZero();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void negativeControlAnAcquireThatThrowsLateIsCountedLate() throws Exception {
        try (RedisServer redis = RedisServer.start(); FencedResource resource = FencedResource.start()) {
            ChildJvm child = worker("late", redis.address(), resource, "late-throw", 2);
            try {
                assertThat(child.awaitLine("READY", Duration.ofSeconds(30))).as(child.describe()).isNotNull();
                // each thread's first call throws 1.2 s after its 2 s wait; the second is stopped 1.3 s in
                Thread.sleep(WAIT.plusMillis(2500).toMillis());
                child.closeInput();
                String stats = child.awaitLine("STATS", Duration.ofSeconds(20));
                assertThat(stats).as(child.describe()).isNotNull();
                Matcher m = STATS.matcher(stats);
                assertThat(m.find()).as(stats).isTrue();
                System.out.println("negative control, acquire throwing late: " + stats);
                long late = Long.parseLong(m.group(3));
                assertThat(late).as("late calls, one per thread at least; " + stats).isGreaterThanOrEqualTo(2);
                assertThat(Long.parseLong(m.group(5))).as("late calls that threw: all of them; " + stats).isEqualTo(late);
                assertThat(Long.parseLong(m.group(4))).as("the most a call overran; " + stats).isGreaterThan(1000);
            } finally {
                child.close();
            }
        }
    }

    private FencedResource.Report run(RedisServer redis, String mode) throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        Path histories = Files.createDirectory(dir.resolve(mode));
        try (FencedResource resource = FencedResource.start()) {
            for (String name : List.of("a", "b")) {
                children.add(worker(name, redis.address(), resource, mode, 4, "faults:lock:" + mode, histories));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY", Duration.ofSeconds(30));
            }
            Thread.sleep(3000);
            for (ChildJvm c : children) {
                c.closeInput();
                c.awaitLine("STATS", Duration.ofSeconds(20));
            }
            return resource.report();
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    static ChildJvm worker(String name, String redis, FencedResource resource, String mode, int threads) {
        return worker(name, redis, resource, mode, threads, "faults:lock");
    }

    static ChildJvm worker(String name, String redis, FencedResource resource, String mode, int threads, String lock) {
        return ChildJvm.start(name, FenceWorker.class, List.of(redis, resource.address(), lock, mode,
                Integer.toString(threads), Long.toString(TTL.toMillis()), Long.toString(WAIT.toMillis()), name));
    }

    /** A worker that writes its history to {@code histories/<name>.jsonl}. */
    static ChildJvm worker(String name, String redis, FencedResource resource, String mode, int threads, String lock,
                           Path histories) {
        return ChildJvm.start(name, FenceWorker.class, List.of(redis, resource.address(), lock, mode,
                Integer.toString(threads), Long.toString(TTL.toMillis()), Long.toString(WAIT.toMillis()), name, "-",
                histories.resolve(name + ".jsonl").toString()));
    }
}
