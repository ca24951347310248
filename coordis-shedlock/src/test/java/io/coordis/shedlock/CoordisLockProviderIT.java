package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.testkit.Keyspace;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a ShedLock provider must do (ShedLock publishes no contract tests; these are ours), against a real Redis:
 * two providers on two clients stand for two instances of a service.
 */
class CoordisLockProviderIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis clientA;
    private Coordis clientB;
    private CoordisLockProvider a;
    private CoordisLockProvider b;

    @BeforeEach
    void connect() {
        clientA = Coordis.builder().keyPrefix(Prefixed.prefix()).url(redis.uri()).connect();
        clientB = Coordis.builder().keyPrefix(Prefixed.prefix()).url(redis.uri()).connect();
        a = CoordisLockProvider.of(clientA);
        b = CoordisLockProvider.of(clientB);
    }

    @AfterEach
    void close() {
        clientA.close();
        clientB.close();
    }

    static LockConfiguration job(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(ClockProvider.now(), name, atMost, atLeast);
    }

    static LockConfiguration job(String name) {
        return job(name, Duration.ofSeconds(30), Duration.ZERO);
    }

    private long pttl(String name) {
        return (Long) redis.server().command("PTTL", Prefixed.key(name));
    }

    @Test
    void lockAndUnlock() {
        SimpleLock lock = a.lock(job("report")).orElseThrow();
        assertThat(redis.server().command("EXISTS", Prefixed.key("report"))).isEqualTo(1L);
        lock.unlock();
        assertThat(redis.server().command("EXISTS", Prefixed.key("report"))).isEqualTo(0L);
        assertThatThrownBy(lock::unlock).as("ShedLock's own check").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void noSecondLockWhileHeldNeitherElsewhereNorInThisJvm() {
        SimpleLock lock = a.lock(job("held")).orElseThrow();
        assertThat(b.lock(job("held"))).isEmpty();
        assertThat(a.lock(job("held"))).isEmpty();
        lock.unlock();
        b.lock(job("held")).orElseThrow().unlock();
    }

    @Test
    void aBusyLockWritesNothingToRedis() {
        SimpleLock lock = a.lock(job("busy")).orElseThrow();
        Keyspace before = Keyspace.of(redis.server(), Prefixed.key("busy"));
        assertThat(b.lock(job("busy"))).isEmpty();
        assertThat(Keyspace.of(redis.server(), Prefixed.key("busy"))).as("no waiter marker: the provider never waits")
                .isEqualTo(before);
        lock.unlock();
        assertThat(Keyspace.of(redis.server(), Prefixed.key("busy")).lasting()).as("only the fencing counter lasts")
                .isSubsetOf(Set.of(Prefixed.derived("busy", "fence")));
    }

    @Test
    void twoNamesAreIndependent() {
        SimpleLock one = a.lock(job("one")).orElseThrow();
        SimpleLock two = b.lock(job("two")).orElseThrow();
        one.unlock();
        two.unlock();
    }

    @Test
    void lockRightAfterUnlockTenTimes() {
        for (int i = 0; i < 10; i++) {
            (i % 2 == 0 ? a : b).lock(job("again")).orElseThrow().unlock();
        }
    }

    @Test
    void theLockTimesOutAfterLockAtMostFor() {
        long start = System.nanoTime();
        a.lock(job("timeout", Duration.ofMillis(400), Duration.ZERO)).orElseThrow();
        assertThat(pttl("timeout")).as("lockAtMostFor is the TTL, not renewed").isBetween(1L, 400L);
        assertThat(b.lock(job("timeout"))).isEmpty();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> b.lock(job("timeout")).isPresent());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(350));
    }

    @Test
    void lockAtLeastForKeepsTheKeyAfterUnlockAndNothingInThisJvm() {
        long start = System.nanoTime();
        SimpleLock lock = a.lock(job("atleast", Duration.ofSeconds(30), Duration.ofMillis(700))).orElseThrow();
        lock.unlock();
        assertThat(pttl("atleast")).as("left to expire at lockAtLeastUntil").isBetween(1L, 700L);
        assertThat(b.lock(job("atleast"))).isEmpty();
        assertThat(a.lock(job("atleast"))).as("the same JVM is refused by Redis, not by a local leftover").isEmpty();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> a.lock(job("atleast")).map(l -> {
                    l.unlock();
                    return true;
                }).orElse(false));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(650));
    }

    @Test
    void unlockAfterLockAtLeastForPassedDeletesTheKey() throws Exception {
        SimpleLock lock = a.lock(job("atleast-passed", Duration.ofSeconds(30), Duration.ofMillis(100))).orElseThrow();
        Thread.sleep(150);
        lock.unlock();
        assertThat(redis.server().command("EXISTS", Prefixed.key("atleast-passed"))).isEqualTo(0L);
        // less than a millisecond left counts as none, as ShedLock's providers count: the key goes at once
        a.lock(new LockConfiguration(Instant.now().plusNanos(900_000), "atleast-passed", Duration.ofSeconds(30),
                Duration.ZERO)).orElseThrow().unlock();
        assertThat(b.lock(job("atleast-passed"))).isPresent();
    }

    /** A run still going when its lock expires is told in ShedLock's terms; nothing failed to renew. */
    @Test
    void aRunThatOutlivesLockAtMostForIsLoggedInShedLocksTerms() {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        LockConfiguration job = job("outlived", Duration.ofMillis(300), Duration.ZERO);
        long fence;
        try {
            SimpleLock lock = a.lock(job).orElseThrow();
            fence = CoordisLockProvider.currentFencingToken();
            await().atMost(Duration.ofSeconds(10)).until(() -> log.toString(StandardCharsets.UTF_8)
                    .contains("task 'outlived'"));
            lock.unlock();
        } finally {
            System.setErr(err);
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("WARN")
                .contains("task 'outlived' (fencing number " + fence + ") ran longer than lockAtMostFor (PT0.3S): its "
                        + "lock expired at " + job.getLockAtMostUntil() + ", and another instance may have started "
                        + "the task")
                .contains("lock 'outlived' expired while held: its TTL ran out, and renewal is off")
                .doesNotContain("could not be renewed").doesNotContain("is stale");
    }

    @Test
    void extendOnce() {
        SimpleLock lock = a.lock(job("extend", Duration.ofMillis(500), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ZERO).orElseThrow();
        assertThat(pttl("extend")).isGreaterThan(15_000L);
        assertThatThrownBy(lock::unlock).as("the old lock is spent").isInstanceOf(IllegalStateException.class);
        extended.unlock();
        assertThat(b.lock(job("extend"))).isPresent();
    }

    @Test
    void extendManyTimesKeepsTheLockPastItsFirstLockAtMostFor() throws Exception {
        SimpleLock lock = a.lock(job("extend-many", Duration.ofMillis(300), Duration.ZERO)).orElseThrow();
        for (int i = 0; i < 6; i++) {
            Thread.sleep(100);
            lock = lock.extend(Duration.ofMillis(300), Duration.ZERO).orElseThrow();
            assertThat(b.lock(job("extend-many"))).isEmpty();
        }
        lock.unlock();
        assertThat(b.lock(job("extend-many"))).isPresent();
    }

    @Test
    void noExtendAfterUnlock() {
        SimpleLock lock = a.lock(job("extend-unlocked")).orElseThrow();
        lock.unlock();
        assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(10), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class);
        assertThat(redis.server().command("EXISTS", Prefixed.key("extend-unlocked"))).isEqualTo(0L);
    }

    @Test
    void noExtendOnceExpired() throws Exception {
        SimpleLock lock = a.lock(job("extend-expired", Duration.ofMillis(150), Duration.ZERO)).orElseThrow();
        Thread.sleep(300);
        SimpleLock other = b.lock(job("extend-expired")).orElseThrow();
        assertThat(lock.extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertThat(pttl("extend-expired")).as("the new holder's TTL untouched").isGreaterThan(25_000L);
        other.unlock();
    }

    @Test
    void extendWithAnAtLeastTime() {
        SimpleLock lock = a.lock(job("extend-atleast", Duration.ofMillis(500), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(20), Duration.ofMillis(800)).orElseThrow();
        extended.unlock();
        assertThat(pttl("extend-atleast")).isBetween(1L, 800L);
        assertThat(b.lock(job("extend-atleast"))).isEmpty();
    }

    @Test
    void lockAtMostForBelowTheShortestCoordisLockIsAClearError() {
        assertThatThrownBy(() -> a.lock(job("tiny", Duration.ofMillis(50), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtMostFor of 'tiny' is 50 ms")
                .hasMessageContaining("100 ms")
                .hasMessageContaining("PT0.1S");
        assertThat(redis.server().command("EXISTS", Prefixed.key("tiny"))).isEqualTo(0L);
        SimpleLock lock = a.lock(job("tiny", Duration.ofMillis(100), Duration.ZERO)).orElseThrow();
        assertThatThrownBy(() -> lock.extend(Duration.ofMillis(99), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("99 ms");
    }

    /** On a thread of its own: the locks other tests leave locked stay listed on theirs (never unlocked). */
    @Test
    void theRunningJobSeesItsFencingNumberAndItGrows() throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            CompletableFuture.runAsync(this::runFencedJobs, thread).get(20, TimeUnit.SECONDS);
        } finally {
            thread.shutdown();
        }
    }

    private void runFencedJobs() {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(a);
        DefaultLockingTaskExecutor other = new DefaultLockingTaskExecutor(b);
        List<Long> fences = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            (i % 2 == 0 ? executor : other).executeWithLock((Runnable) () -> {
                long fence = CoordisLockProvider.currentFencingToken();
                LockExtender.extendActiveLock(Duration.ofSeconds(5), Duration.ZERO);
                assertThat(CoordisLockProvider.currentFencingToken()).as("extending keeps the execution").isEqualTo(fence);
                fences.add(fence);
            }, job("fenced"));
        }
        assertThat(fences).hasSize(4).isSorted().doesNotHaveDuplicates();
        assertThatThrownBy(CoordisLockProvider::currentFencingToken).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@SchedulerLock");
        SimpleLock direct = a.lock(job("fenced-direct")).orElseThrow();
        long fence = CoordisLockProvider.currentFencingToken();
        assertThat(fence).as("a lock taken without the executor counts too").isPositive();
        direct.unlock();
        assertThatThrownBy(CoordisLockProvider::currentFencingToken).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void badLayoutOptionsAreRejectedSayingWhatToWrite() {
        assertThatThrownBy(() -> CoordisLockProvider.builder(clientA).shedLockLayout(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'default'");
        assertThatThrownBy(() -> CoordisLockProvider.builder(clientA).shedLockLayout("", "prod"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'job-lock'");
    }
}
