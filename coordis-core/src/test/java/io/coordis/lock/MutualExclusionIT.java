package io.coordis.lock;

import io.coordis.testing.Checker;
import io.coordis.testing.CheckerClient;
import io.coordis.testing.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion under contention from several JVMs and several threads per JVM, judged by one
 * referee ({@link Checker}) on one clock; and the same referee catching a deliberately broken lock.
 */
class MutualExclusionIT {
    private static final int CHILDREN = 2;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private record Run(Checker.Report report, List<LockWorker.Result> results, List<String> workers) {
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void oneHolderAtATimeAcrossProcessesAndThreadsWithRisingFences() throws Exception {
        LockWorker.Settings settings = new LockWorker.Settings(redis.server().address(), 0, "mutex:shared",
                Duration.ofSeconds(5), Duration.ofSeconds(5), 5_000, Duration.ofMillis(1), false);

        Run run = run(settings, 4, 4);

        Checker.Report r = run.report();
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
        LockWorker.Settings settings = new LockWorker.Settings(redis.server().address(), 0, "mutex:handoff",
                Duration.ofSeconds(5), Duration.ofSeconds(5), 3_000, Duration.ofMillis(1), false);

        Run run = run(settings, 8, 0, true);

        Checker.Report r = run.report();
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
        LockWorker.Settings settings = new LockWorker.Settings(redis.server().address(), 0, "mutex:broken",
                Duration.ofSeconds(5), Duration.ofSeconds(2), 400, Duration.ofMillis(2), true);

        Run run = run(settings, 2, 2);

        Checker.Report r = run.report();
        System.out.println("broken lock: " + r);
        assertThat(r.overlaps()).as("the broken lock must be caught; report: " + r).isGreaterThan(0);
        assertThat(r.maxInside()).isGreaterThan(1);
        assertThat(r.enters().keySet()).containsExactlyInAnyOrderElementsOf(run.workers());
    }

    /** The referee's two judgements, fed by hand: an ENTER while someone is inside, and a fence going down. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void checkerCountsOverlapsAndStaleFences() {
        try (Checker checker = new Checker();
             CheckerClient a = new CheckerClient(checker.port(), "a");
             CheckerClient b = new CheckerClient(checker.port(), "b")) {
            a.enter(5);
            a.exit(5);
            b.enter(7);
            b.exit(7);
            assertThat(checker.report().overlaps()).isZero();
            assertThat(checker.report().fenceRegressions()).isZero();

            a.enter(6);
            Checker.Report stale = checker.report();
            assertThat(stale.fenceRegressions()).isEqualTo(1);
            assertThat(stale.overlaps()).isZero();
            b.enter(8);
            Checker.Report both = checker.report();
            assertThat(both.overlaps()).isEqualTo(1);
            assertThat(both.maxInside()).isEqualTo(2);
            a.exit(6);
            b.exit(8);
            assertThat(checker.report().insideNow()).isEmpty();
            assertThat(checker.report().protocolErrors()).isZero();
        }
    }

    /**
     * Starts {@link #CHILDREN} contender JVMs with {@code threadsPerChild} workers each plus
     * {@code localThreads} workers in this JVM, releases them together and waits for all to finish.
     */
    private Run run(LockWorker.Settings base, int threadsPerChild, int localThreads) throws Exception {
        return run(base, threadsPerChild, localThreads, false);
    }

    private Run run(LockWorker.Settings base, int threadsPerChild, int localThreads, boolean oneClient)
            throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, localThreads));
        try (Checker checker = new Checker()) {
            LockWorker.Settings settings = new LockWorker.Settings(base.redis(), checker.port(), base.lockName(),
                    base.ttl(), base.runFor(), base.rounds(), base.work(), base.broken());
            List<String> workers = new ArrayList<>();
            for (int c = 0; c < CHILDREN; c++) {
                List<String> args = new ArrayList<>(settings.toArgs());
                args.add("name=p" + c);
                args.add("threads=" + threadsPerChild);
                args.add("oneClient=" + oneClient);
                children.add(ChildJvm.start("contender-" + c, ContenderProcess.class, args));
                for (int t = 0; t < threadsPerChild; t++) {
                    workers.add("p" + c + "-t" + t);
                }
            }
            try (LockWorker.Crew local = new LockWorker.Crew("local", localThreads, settings)) {
                List<Future<LockWorker.Result>> futures = new ArrayList<>();
                for (LockWorker w : local.workers()) {
                    workers.add(w.id());
                    futures.add(pool.submit(w));
                }
                for (ChildJvm child : children) {
                    child.awaitLine("READY", START_TIMEOUT);
                }
                assertThat(checker.awaitGreetings(workers.size(), START_TIMEOUT))
                        .as("all workers connected to the checker: " + checker.report().enters() + children)
                        .isTrue();
                checker.go();

                Duration finish = base.runFor().plusSeconds(30);
                List<LockWorker.Result> results = new ArrayList<>();
                for (Future<LockWorker.Result> f : futures) {
                    results.add(f.get(finish.toMillis(), TimeUnit.MILLISECONDS));
                }
                for (ChildJvm child : children) {
                    child.awaitLine("FINISHED", finish);
                    assertThat(child.awaitExit(Duration.ofSeconds(10))).as(child.describe()).isTrue();
                    assertThat(child.exitValue()).as(child.describe()).isZero();
                    for (String line : child.lines()) {
                        if (line.startsWith("DONE ")) {
                            results.add(LockWorker.Result.fromLine(line));
                        }
                    }
                }
                assertThat(results).extracting(LockWorker.Result::worker).containsExactlyInAnyOrderElementsOf(workers);
                return new Run(checker.report(), results, workers);
            }
        } finally {
            pool.shutdownNow();
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }
}
