package io.coordis.lock;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion under contention from several JVMs and several threads per JVM, judged by one
 * referee ({@link FencedResource}) on one clock; and the same referee catching a deliberately broken lock.
 */
class MutualExclusionIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void oneHolderAtATimeAcrossProcessesAndThreadsWithRisingFences() throws Exception {
        LockWorker.Settings settings = new LockWorker.Settings(List.of(redis.server().address()), "", "mutex:shared",
                Duration.ofSeconds(5), Duration.ofSeconds(5), 5_000, Duration.ofMillis(1), false);

        Contenders.Run run = Contenders.run(settings, 4, 4, false, () -> {
        });

        FencedResource.Report r = run.report();
        System.out.println("coordis lock: " + r + "\n  workers: " + run.results());
        String detail = "report: " + r + "\nworkers: " + run.results();
        assertThat(r.overlaps()).as("two holders inside at once; " + detail).isZero();
        assertThat(r.maxInside()).as(detail).isEqualTo(1);
        assertThat(r.fenceRegressions()).as("fencing tokens not strictly increasing in enter order; " + detail).isZero();
        assertThat(r.protocolErrors()).as(detail).isZero();
        assertThat(r.insideNow()).as("workers left inside; " + detail).isEmpty();
        assertThat(r.enters().keySet()).as("every worker got the lock at least once; " + detail)
                .containsExactlyInAnyOrderElementsOf(run.workers());
        assertThat(r.totalEnters()).as(detail).isEqualTo(run.results().stream().mapToInt(LockWorker.Result::rounds).sum());
        assertThat(r.totalEnters()).as("enough contention to mean something; " + detail).isGreaterThan(100);
        assertThat(run.results()).as("no Redis errors and no lease lost inside the critical section")
                .allSatisfy(w -> {
                    assertThat(w.errors()).isZero();
                    assertThat(w.lostInside()).isZero();
                });
        assertThat(redis.server().command("EXISTS", Prefixed.key(settings.lockName()))).as("lock left behind")
                .isEqualTo(0L);
    }

    /**
     * Two processes with eight threads each on one shared client: releases hand the lock to the next
     * local waiter in one script call. Still one holder at a time, fences rising in enter order, and both
     * processes get their turns (hand-offs in a row are bounded).
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void localHandOffsKeepOneHolderAtATimeAcrossTwoProcessesOfEightThreads() throws Exception {
        LockWorker.Settings settings = new LockWorker.Settings(List.of(redis.server().address()), "", "mutex:handoff",
                Duration.ofSeconds(5), Duration.ofSeconds(5), 3_000, Duration.ofMillis(1), false);

        Contenders.Run run = Contenders.run(settings, 8, 0, true, () -> {
        });

        FencedResource.Report r = run.report();
        System.out.println("coordis lock, hand-offs: " + r + "\n  workers: " + run.results());
        String detail = "report: " + r + "\nworkers: " + run.results();
        assertThat(r.overlaps()).as("two holders inside at once; " + detail).isZero();
        assertThat(r.maxInside()).as(detail).isEqualTo(1);
        assertThat(r.fenceRegressions()).as("fencing tokens not strictly increasing in enter order; " + detail).isZero();
        assertThat(r.protocolErrors()).as(detail).isZero();
        assertThat(r.insideNow()).as("workers left inside; " + detail).isEmpty();
        assertThat(r.enters().keySet()).as("every worker got the lock at least once; " + detail)
                .containsExactlyInAnyOrderElementsOf(run.workers());
        for (String process : List.of("p0-", "p1-")) {
            long enters = r.enters().entrySet().stream().filter(e -> e.getKey().startsWith(process))
                    .mapToLong(e -> e.getValue().longValue()).sum();
            assertThat(enters).as("process %s got its share; %s", process, detail).isGreaterThan(r.totalEnters() / 20);
        }
        assertThat(run.results()).allSatisfy(w -> {
            assertThat(w.errors()).isZero();
            assertThat(w.lostInside()).isZero();
        });
        assertThat(redis.server().command("EXISTS", Prefixed.key(settings.lockName()))).as("lock left behind")
                .isEqualTo(0L);
    }

    /** Negative control: the same referee and workers, with SET without NX and plain DEL, must see overlaps. */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void checkerCatchesABrokenLockAcrossProcesses() throws Exception {
        LockWorker.Settings settings = new LockWorker.Settings(List.of(redis.server().address()), "", "mutex:broken",
                Duration.ofSeconds(5), Duration.ofSeconds(2), 400, Duration.ofMillis(2), true);

        Contenders.Run run = Contenders.run(settings, 2, 2, false, () -> {
        });

        FencedResource.Report r = run.report();
        System.out.println("broken lock: " + r);
        assertThat(r.overlaps()).as("the broken lock must be caught; report: " + r).isGreaterThan(0);
        assertThat(r.maxInside()).isGreaterThan(1);
        assertThat(r.enters().keySet()).containsExactlyInAnyOrderElementsOf(run.workers());
    }
}
