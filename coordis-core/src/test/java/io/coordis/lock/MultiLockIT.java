package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The multi-lock on one node: all names or none under the fenced referee (one {@link FencedResource} per name) with
 * overlapping name sets from four processes, and the same referee catching a variant without the all-or-none step;
 * {a,b} against {b,a} without deadlock; a killed holder freeing every name by its TTL; loss of one name losing the
 * lease; clear errors for bad name lists.
 */
class MultiLockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** The name sets of the four processes. */
    private static final List<List<String>> SETS = List.of(List.of("a", "b"), List.of("b", "c"), List.of("a", "c"),
            List.of("a", "b", "c"));

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void overlappingNameSetsFromFourProcessesNeverShareAName() throws Exception {
        List<FencedResource.Report> reports = referee("multi");
        for (FencedResource.Report r : reports) {
            assertThat(r.overlaps()).as("overlaps at one name's resource: %s", r).isZero();
            assertThat(r.violations()).as("%s", r).isZero();
            assertThat(r.fenceRegressions()).as("each name's numbers rise: %s", r).isZero();
            assertThat(r.insideNow()).as("%s", r).isEmpty();
            assertThat(r.enters().keySet().stream().map(c -> c.substring(0, c.indexOf('-'))).distinct())
                    .as("every process using the name got it: %s", r).hasSizeGreaterThanOrEqualTo(2);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theRefereeCatchesNamesTakenOneByOneWithoutAllOrNone() throws Exception {
        List<FencedResource.Report> reports = referee("partial");
        assertThat(reports.stream().mapToLong(FencedResource.Report::overlaps).sum())
                .as("the broken variant must be caught: %s", reports).isPositive();
    }

    /**
     * Runs four processes of two threads over {@link #SETS} in {@code mode} until every name's resource saw enough
     * entries (or, for the broken variant, an overlap), and answers each name's report.
     */
    private static List<FencedResource.Report> referee(String mode) throws Exception {
        Map<String, FencedResource> resources = new LinkedHashMap<>();
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (String n : List.of("a", "b", "c")) {
                resources.put(n, FencedResource.start());
            }
            String prefix = "ref-" + mode + "-";
            for (int i = 0; i < SETS.size(); i++) {
                String pairs = String.join(",", SETS.get(i).stream()
                        .map(n -> prefix + n + "=" + resources.get(n).address()).toList());
                children.add(ChildJvm.start("multi-" + i, MultiLockWorker.class,
                        List.of(redis.uri(), pairs, mode, "2", "p" + i)));
            }
            for (ChildJvm child : children) {
                child.awaitLine("READY", Duration.ofSeconds(30));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline && !enough(resources.values(), mode)) {
                Thread.sleep(50);
            }
            for (ChildJvm child : children) {
                child.closeInput();
            }
            for (ChildJvm child : children) {
                String stats = child.awaitLine("STATS", Duration.ofSeconds(20));
                if (mode.equals("multi")) {
                    assertThat(stats).as("every process got its names; %s", child.describe())
                            .doesNotContain("cycles=0 ").contains("errors=0");
                }
            }
            List<FencedResource.Report> reports = resources.values().stream().map(FencedResource::report).toList();
            System.out.println("multi-lock referee, " + mode + ": " + reports);
            return reports;
        } finally {
            children.forEach(ChildJvm::close);
            resources.values().forEach(FencedResource::close);
        }
    }

    private static boolean enough(Iterable<FencedResource> resources, String mode) {
        boolean all = true;
        for (FencedResource r : resources) {
            FencedResource.Report report = r.report();
            if (mode.equals("partial") && report.overlaps() > 0) {
                return true;
            }
            all &= report.totalEnters() >= 150;
        }
        return all;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void abAgainstBaThousandRoundsWithoutDeadlock() throws Exception {
        try (Coordis one = TestClients.connect(redis.uri()); Coordis two = TestClients.connect(redis.uri())) {
            MultiLock ab = one.multiLock("dl:a", "dl:b");
            MultiLock ba = two.multiLock("dl:b", "dl:a");
            List<Long> fences = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<?>[] runs = IntStream.range(0, 2).mapToObj(i -> CompletableFuture.runAsync(() -> {
                MultiLock lock = i == 0 ? ab : ba;
                for (int round = 0; round < 1000; round++) {
                    try (MultiLease lease = lock.acquire(Duration.ofSeconds(20)).orElseThrow()) {
                        fences.add(lease.fencingTokens().get("dl:a"));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            })).toArray(CompletableFuture[]::new);
            CompletableFuture.allOf(runs).get(50, TimeUnit.SECONDS);
            assertThat(fences).hasSize(2000).doesNotHaveDuplicates();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aKilledHolderFreesEveryNameWithinItsTtl() throws Exception {
        try (Coordis coordis = TestClients.connect(redis.uri());
             ChildJvm holder = ChildJvm.start("multi-holder", MultiLockWorker.class,
                     List.of(redis.uri(), "kill:a,kill:b,kill:c", "holder", "1", "holder"))) {
            holder.awaitLine("HOLDING", Duration.ofSeconds(30));
            for (String n : List.of("kill:a", "kill:b", "kill:c")) {
                assertThat(coordis.lock(n).holder()).as("%s shows as held", n).isPresent();
                assertThat(coordis.lock(n).tryAcquire()).as("%s is busy to a plain lock", n).isEmpty();
            }
            ProcessHandle.of(holder.pid()).orElseThrow().destroyForcibly();
            long killed = System.nanoTime();
            MultiLease lease = coordis.multiLock("kill:c", "kill:a", "kill:b").acquire(Duration.ofSeconds(15))
                    .orElseThrow();
            long tookMs = (System.nanoTime() - killed) / 1_000_000;
            assertThat(tookMs).as("freed by the 2 s TTL, with room for a busy machine").isLessThan(8_000);
            lease.release();
            for (String n : List.of("kill:a", "kill:b", "kill:c")) {
                assertThat(coordis.lock(n).holder()).as("%s freed by release", n).isEmpty();
            }
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void losingOneNameLosesTheLeaseAndReleaseFreesTheRest() throws Exception {
        try (Coordis coordis = TestClients.connect(redis.uri())) {
            MultiLease lease = coordis.multiLock(List.of("lose:a", "lose:b"),
                    LockOptions.defaults().withTtl(Duration.ofSeconds(1))).acquire(Duration.ofSeconds(5)).orElseThrow();
            long before = coordis.lock("lose:a").holder().orElseThrow().fencingToken().orElseThrow();
            assertThat(lease.fencingTokens()).containsOnlyKeys("lose:a", "lose:b").containsEntry("lose:a", before);
            assertThat(coordis.lock("lose:b").forceUnlock("test")).isPresent();
            lease.lost().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(lease.isHeld()).isFalse();
            lease.release();
            assertThat(coordis.lock("lose:a").holder()).as("release frees the name still held").isEmpty();
            Lease plain = coordis.lock("lose:a").tryAcquire().orElseThrow();
            assertThat(plain.fencingToken()).as("one counter per name").isGreaterThan(before);
            plain.release();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void asyncAcquiresWaitWithoutAThreadAndACancelledOneLeavesNothing() throws Exception {
        try (Coordis one = TestClients.connect(redis.uri()); Coordis two = TestClients.connect(redis.uri())) {
            MultiLease held = one.multiLock("async:a", "async:b").tryAcquireAsync().get(10, TimeUnit.SECONDS)
                    .orElseThrow();
            MultiLock other = two.multiLock("async:b", "async:c");
            assertThat(other.tryAcquireAsync().get(10, TimeUnit.SECONDS)).as("busy while async:b is held").isEmpty();
            assertThat(other.acquireAsync(Duration.ofMillis(200)).get(10, TimeUnit.SECONDS))
                    .as("the wait runs out while async:b is held").isEmpty();
            assertThat(two.lock("async:c").holder()).as("nothing kept from a try that found a name busy").isEmpty();

            CompletableFuture<MultiLease> waiting = other.acquireAsync();
            CompletableFuture<Optional<MultiLease>> cancelled = two.multiLock("async:a", "async:c")
                    .acquireAsync(Duration.ofSeconds(30));
            assertThat(waiting).as("waits while async:b is held").isNotDone();
            assertThat(cancelled.cancel(false)).isTrue();
            held.release();
            try (MultiLease got = waiting.get(20, TimeUnit.SECONDS)) {
                assertThat(got.fencingTokens()).containsOnlyKeys("async:b", "async:c");
                assertThat(one.lock("async:a").holder()).as("the cancelled wait took nothing").isEmpty();
            }
            assertThat(one.multiLock("async:a", "async:b", "async:c").tryAcquire()).as("all free again")
                    .hasValueSatisfying(MultiLease::release);
        }
    }

    @Test
    void badNameListsAreRefusedSayingWhatToWrite() {
        try (Coordis coordis = TestClients.connect(redis.uri())) {
            assertThatThrownBy(() -> coordis.multiLock()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least one name");
            assertThatThrownBy(() -> coordis.multiLock("x", "y", "x")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'x' is given twice");
            List<String> many = IntStream.range(0, 101).mapToObj(i -> "n" + i).toList();
            assertThatThrownBy(() -> coordis.multiLock(many)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 100");
            assertThatThrownBy(() -> coordis.multiLock("x", " ")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("blank");
            assertThatThrownBy(() -> coordis.multiLock(List.of("x", "y"), LockOptions.defaults().withFair(true)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("a multi-lock is not fair").hasMessageContaining("withFair(false)");
        }
    }
}
