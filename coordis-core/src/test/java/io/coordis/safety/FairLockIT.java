package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.LockChecker;
import io.coordis.testkit.history.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fair lock across processes: waiters in three JVMs get it in the order they arrived (the plain lock, in the same
 * run, hands it to a later waiter of the holder's own process); a SIGKILLed waiter's place lapses within seconds;
 * and the fenced referee over fair acquisitions from three JVMs finds no violation.
 */
class FairLockIT {
    private static final Duration TTL = Duration.ofSeconds(3);
    private static final Duration WAIT = Duration.ofSeconds(2);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void waitersFromThreeJvmsGetTheLockInArrivalOrder() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            assertThat(grantOrder(redis, "fair")).containsExactly("A", "B", "H2");
        }
    }

    /**
     * The negative control: the same run on the plain lock. Its holder hands the lock to the waiter of its own
     * process (H2) that came last, past the two that waited longer in other processes, so the order check fails.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void negativeControlThePlainLockBreaksArrivalOrder() throws Exception {
        try (RedisServer redis = RedisServer.start()) {
            List<String> order = grantOrder(redis, "plain");
            System.out.println("negative control, plain lock: granted in order " + order);
            assertThat(order).as("the plain lock hands on locally first").isNotEqualTo(List.of("A", "B", "H2"));
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aKilledWaitersPlaceLapsesWithinSeconds() throws Exception {
        String name = "fair:killed";
        String line = Prefixed.derived(name, "line");
        try (RedisServer redis = RedisServer.start();
             Coordis coordis = TestClients.connect(redis.uri())) {
            Lease holding = coordis.lock(name, LockOptions.defaults().withFair(true)).acquire();
            ChildJvm killed = waiter(redis, name, "fair", "K");
            ChildJvm next = waiter(redis, name, "fair", "B");
            try {
                killed.send("take K");
                awaitTrue(() -> count(redis, line) == 1, "K in line");
                next.send("take B");
                awaitTrue(() -> count(redis, line) == 2, "B in line");
                killed.close(); // SIGKILL: its place is renewed no more
                long released = System.nanoTime();
                holding.release();
                String got = next.awaitLine("GOT B", Duration.ofSeconds(20));
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
                System.out.println("the next waiter got the lock " + tookMs + " ms after the release");
                assertThat(got).as(next.describe()).isNotNull();
                assertThat(tookMs).as("the killed waiter's place lapses (3 s) and the next tries again").isLessThan(8000);
                // bounded footprint: the line leaves nothing once nobody waits
                awaitTrue(() -> (Long) redis.command("EXISTS", line) == 0
                        && (Long) redis.command("EXISTS", Prefixed.derived(name, "line-until")) == 0, "line gone");
            } finally {
                killed.close();
                next.close();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void othersSeeAPlainLockAndAWaiterThatGivesUpLeavesTheLine() throws Exception {
        String name = "fair:plain";
        String line = Prefixed.derived(name, "line");
        LockOptions fair = LockOptions.defaults().withFair(true);
        try (RedisServer redis = RedisServer.start();
             Coordis one = TestClients.connect(redis.uri());
             Coordis two = TestClients.connect(redis.uri())) {
            Lease held = one.lock(name, fair).acquire();
            assertThat(two.lock(name).holder()).hasValueSatisfying(h -> assertThat(h.fencingToken())
                    .hasValue(held.fencingToken()));
            assertThat(two.lock(name).tryAcquire()).as("the plain lock of another client").isEmpty();
            var timedOut = two.lock(name, fair).acquireAsync(Duration.ofSeconds(2));
            awaitTrue(() -> count(redis, line) == 1, "the waiter in line");
            assertThat(timedOut.get(10, TimeUnit.SECONDS)).isEmpty();
            awaitTrue(() -> count(redis, line) == 0, "the line empty after the wait ran out");
            var cancelled = two.lock(name, fair).acquireAsync(Duration.ofSeconds(30));
            awaitTrue(() -> count(redis, line) == 1, "the second waiter in line");
            cancelled.cancel(true);
            awaitTrue(() -> (Long) redis.command("EXISTS", line) == 0, "the line gone after a cancel");
            held.release();
            assertThat(two.lock(name, fair).tryAcquire()).as("free, nobody waits").isPresent();
            assertThatThrownBy(() -> one.readWriteLock(name, fair)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("withFair(false)");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theRefereeFindsNoViolationOverFairAcquisitionsFromThreeJvms() throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        Path histories = Files.createDirectory(dir.resolve("fair"));
        try (RedisServer redis = RedisServer.start(); FencedResource resource = FencedResource.start()) {
            for (String name : List.of("a", "b", "c")) {
                children.add(started(name, List.of(redis.address(), resource.address(), "fair:referee", "fair", "2",
                        Long.toString(TTL.toMillis()), Long.toString(WAIT.toMillis()), name, "-",
                        histories.resolve(name + ".jsonl").toString())));
            }
            Thread.sleep(4000); // the run's length, not a wait for a condition
            for (ChildJvm c : children) {
                c.closeInput();
                assertThat(c.awaitLine("STATS", Duration.ofSeconds(20))).as(c.describe()).isNotNull();
            }
            FencedResource.Report r = resource.report();
            List<Op> ops = Histories.read(histories);
            LockChecker.Result checked = LockChecker.check(ops, TTL);
            System.out.println("fair lock from three JVMs: " + r + "; histories " + checked);
            assertThat(ops.stream().filter(o -> o.is("ok", "acquire")).map(Op::process).distinct().count())
                    .as("every process got the lock").isEqualTo(3);
            assertThat(r.violations()).as("fenced violations; " + r).isZero();
            assertThat(r.overlaps()).as("overlaps; " + r).isZero();
            assertThat(checked.fenceViolations()).as("fence violations: %s", checked.examples()).isZero();
            assertThat(checked.overlaps()).as("overlaps: %s", checked.examples()).isZero();
        } finally {
            children.forEach(ChildJvm::close);
        }
    }

    /**
     * A fence worker started and connected, one at a time: a cold JVM beside other builds may miss the worker's
     * 500 ms connection timeout, and is then started again (at most three times).
     */
    private static ChildJvm started(String name, List<String> args) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            ChildJvm c = ChildJvm.start(name, FenceWorker.class, args);
            if (c.awaitLine("READY", Duration.ofSeconds(30)) != null) {
                return c;
            }
            String why = c.describe();
            c.close();
            assertThat(attempt).as("worker " + name + " never connected: " + why).isLessThan(3);
        }
    }

    /**
     * H1 in process H holds; A (process A), then B (process B), then H2 (process H again) ask for the lock, each
     * once the one before waits; H1 releases. The labels in the order of their fencing numbers, i.e. of the grants.
     */
    private List<String> grantOrder(RedisServer redis, String mode) throws Exception {
        String name = "fair:order:" + mode;
        String line = Prefixed.derived(name, "line");
        ChildJvm h = waiter(redis, name, mode, "H");
        ChildJvm a = waiter(redis, name, mode, "A");
        ChildJvm b = waiter(redis, name, mode, "B");
        try {
            h.send("hold H1");
            assertThat(h.awaitLine("GOT H1", Duration.ofSeconds(30))).as(h.describe()).isNotNull();
            a.send("take A");
            arrived(redis, a, "A", line, 1, mode);
            b.send("take B");
            arrived(redis, b, "B", line, 2, mode);
            h.send("take H2");
            assertThat(h.awaitLine("ASKING H2", Duration.ofSeconds(30))).as(h.describe()).isNotNull();
            if (mode.equals("plain")) {
                Thread.sleep(300); // the plain lock shows no local waiter at Redis: give H2 time to line up at home
            }
            h.send("release H1");
            Map<Long, String> byFence = new TreeMap<>(Comparator.naturalOrder());
            for (var c : List.of(Map.entry(a, "A"), Map.entry(b, "B"), Map.entry(h, "H2"))) {
                String got = c.getKey().awaitLine("GOT " + c.getValue(), Duration.ofSeconds(30));
                assertThat(got).as(c.getKey().describe()).isNotNull();
                byFence.put(Long.parseLong(got.substring(got.lastIndexOf(' ') + 1)), c.getValue());
            }
            return List.copyOf(byFence.values());
        } finally {
            h.close();
            a.close();
            b.close();
        }
    }

    /** Waits until {@code label}'s acquire waits: for the fair lock, until the line holds {@code inLine} places. */
    private static void arrived(RedisServer redis, ChildJvm c, String label, String line, int inLine, String mode)
            throws InterruptedException {
        assertThat(c.awaitLine("ASKING " + label, Duration.ofSeconds(30))).as(c.describe()).isNotNull();
        if (mode.equals("fair")) {
            awaitTrue(() -> count(redis, line) == inLine, label + " in line");
        } else {
            Thread.sleep(300); // the plain lock keeps no line to watch
        }
    }

    private static ChildJvm waiter(RedisServer redis, String name, String mode, String process)
            throws InterruptedException {
        ChildJvm c = ChildJvm.start(process, FairWaiter.class, List.of(redis.address(), name, mode));
        assertThat(c.awaitLine("READY", Duration.ofSeconds(30))).as(c.describe()).isNotNull();
        return c;
    }

    private static long count(RedisServer redis, String key) {
        return (Long) redis.command("ZCARD", key);
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
