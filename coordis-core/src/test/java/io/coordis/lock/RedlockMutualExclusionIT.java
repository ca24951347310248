package io.coordis.lock;

import io.coordis.testing.Checker;
import io.coordis.testing.ChildJvm;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
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
 * Redlock mutual exclusion under contention from three JVMs on five nodes, judged by one referee
 * ({@link Checker}) on one clock, while one node is killed and restarted after more than the TTL and
 * another is frozen (SIGSTOP) and continued. The same referee catches a broken Redlock that takes one
 * node's SET for the lock.
 */
class RedlockMutualExclusionIT {
    private static final int N = 5;
    private static final int CHILDREN = 2;
    private static final int THREADS_PER_CHILD = 2;
    private static final int LOCAL_THREADS = 2;
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(N);

    private record Run(Checker.Report report, List<RedlockWorker.Result> results, List<String> workers) {
        int lostInside() {
            return results.stream().mapToInt(RedlockWorker.Result::lostInside).sum();
        }

        int rounds() {
            return results.stream().mapToInt(RedlockWorker.Result::rounds).sum();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void oneValidHolderAtATimeWhileANodeRestartsAndAnotherFreezes() throws Exception {
        List<RedisServer> s = redis.servers();
        RedisServer killed = s.get(0);
        RedisServer frozen = s.get(1);
        RedlockWorker.Settings settings = new RedlockWorker.Settings(addresses(), 0, "redlock:mutex", TTL,
                Duration.ofSeconds(7), Duration.ofMillis(1), false);
        ExecutorService faults = Executors.newFixedThreadPool(2);
        List<Future<Object>> injected = new ArrayList<>();
        Run run;
        try {
            run = run(settings, () -> {
                // node 0: kill -9 at 1 s, down 1.5 s (> TTL, the specification's delayed restart), back empty
                injected.add(faults.submit(() -> {
                    Thread.sleep(1_000);
                    killed.restart(TTL.plusMillis(500));
                    return null;
                }));
                // node 1: frozen from 1.5 s to 3 s, so for a second only nodes 2, 3, 4 answer
                injected.add(faults.submit(() -> {
                    Thread.sleep(1_500);
                    frozen.pause();
                    Thread.sleep(1_500);
                    frozen.resume();
                    return null;
                }));
            });
            for (Future<Object> f : injected) {
                f.get(10, TimeUnit.SECONDS); // a fault that could not be injected fails the test
            }
        } finally {
            faults.shutdownNow();
            frozen.resume();
            if (!killed.isRunning()) {
                killed.restart(Duration.ZERO);
            }
        }

        Checker.Report r = run.report();
        String detail = "report: " + r + "\nworkers: " + run.results();
        System.out.println("redlock under faults: " + r + "\n  workers: " + run.results());
        // an overlap is only excused by a lease that had run out before its EXIT
        if (run.lostInside() == 0) {
            assertThat(r.overlaps()).as("two valid holders inside at once; " + detail).isZero();
            assertThat(r.maxInside()).as(detail).isEqualTo(1);
        } else {
            assertThat(r.overlaps()).as("overlaps beyond the leases lost inside; " + detail).isLessThanOrEqualTo(run.lostInside());
        }
        assertThat(r.fenceRegressions()).as("fencing numbers not strictly increasing in enter order; " + detail).isZero();
        assertThat(r.protocolErrors()).as(detail).isZero();
        assertThat(r.insideNow()).as("workers left inside; " + detail).isEmpty();
        assertThat(r.totalEnters()).as(detail).isEqualTo(run.rounds());
        assertThat(r.totalEnters()).as("enough rounds through the faults to mean something; " + detail).isGreaterThan(30);
        for (String process : List.of("p0-", "p1-", "local-")) {
            assertThat(r.enters().keySet()).as("process %s got the lock; %s", process, detail)
                    .anyMatch(w -> w.startsWith(process));
        }
        RedlockNodes.awaitValues(s, settings.lockName(), TTL.plusSeconds(1), (i, v) -> v == null,
                "lock left behind after the run");
    }

    /** Negative control: the same referee and processes, with one node's yes taken for the lock, must see overlaps. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void checkerCatchesARedlockThatCountsASingleNode() throws Exception {
        RedlockWorker.Settings settings = new RedlockWorker.Settings(addresses(), 0, "redlock:broken", TTL,
                Duration.ofSeconds(2), Duration.ofMillis(2), true);

        Run run = run(settings, () -> {
        });

        Checker.Report r = run.report();
        System.out.println("single-node redlock: " + r);
        assertThat(r.overlaps()).as("the broken lock must be caught; report: " + r).isPositive();
        assertThat(r.maxInside()).isGreaterThan(1);
        assertThat(r.enters().keySet()).containsExactlyInAnyOrderElementsOf(run.workers());
    }

    /** Waits for every worker's HELLO; fails at once when a worker or a contender JVM died before it. */
    private static void awaitGreetings(Checker checker, int workers, List<Future<RedlockWorker.Result>> local,
                                       List<ChildJvm> children) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!checker.awaitGreetings(workers, Duration.ofMillis(200))) {
            for (Future<RedlockWorker.Result> f : local) {
                if (f.isDone()) {
                    f.get(); // throws what the worker died of
                    throw new AssertionError("a local worker ended before GO: " + f.get());
                }
            }
            for (ChildJvm child : children) {
                assertThat(child.isAlive() && child.lines().stream().noneMatch(l -> l.startsWith("FAILED")))
                        .as("contender died before GO: %s", child.describe()).isTrue();
            }
            assertThat(System.nanoTime() - deadline).as("workers greeted the checker within %s", START_TIMEOUT).isNegative();
        }
    }

    private static List<String> addresses() {
        return redis.servers().stream().map(RedisServer::address).toList();
    }

    /**
     * Starts the contender JVMs and the local workers, releases them together, calls {@code atGo} right
     * after GO, and waits for every worker to finish.
     */
    private Run run(RedlockWorker.Settings base, Runnable atGo) throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(LOCAL_THREADS);
        long begin = System.nanoTime();
        try (Checker checker = new Checker()) {
            RedlockWorker.Settings settings = base.withChecker(checker.port());
            List<String> workers = new ArrayList<>();
            for (int c = 0; c < CHILDREN; c++) {
                List<String> args = new ArrayList<>(settings.toArgs());
                args.add("name=p" + c);
                args.add("threads=" + THREADS_PER_CHILD);
                children.add(ChildJvm.start("redlock-contender-" + c, RedlockContenderProcess.class, args));
                for (int t = 0; t < THREADS_PER_CHILD; t++) {
                    workers.add("p" + c + "-t" + t);
                }
            }
            List<Future<RedlockWorker.Result>> futures = new ArrayList<>();
            for (int t = 0; t < LOCAL_THREADS; t++) {
                RedlockWorker w = new RedlockWorker("local-t" + t, settings, t % 2 == 0);
                workers.add(w.id());
                futures.add(pool.submit(w));
            }
            awaitGreetings(checker, workers.size(), futures, children);
            long ready = System.nanoTime();
            checker.go();
            atGo.run();

            Duration finish = base.runFor().plusSeconds(30);
            List<RedlockWorker.Result> results = new ArrayList<>();
            for (Future<RedlockWorker.Result> f : futures) {
                results.add(f.get(finish.toMillis(), TimeUnit.MILLISECONDS));
            }
            for (ChildJvm child : children) {
                child.awaitLine("FINISHED", finish);
                assertThat(child.awaitExit(Duration.ofSeconds(10))).as(child.describe()).isTrue();
                assertThat(child.exitValue()).as(child.describe()).isZero();
                for (String line : child.lines()) {
                    if (line.startsWith("DONE ")) {
                        results.add(RedlockWorker.Result.fromLine(line));
                    }
                }
            }
            assertThat(results).extracting(RedlockWorker.Result::worker).containsExactlyInAnyOrderElementsOf(workers);
            System.out.printf("%s: %d workers ready after %d ms, done %d ms after GO%n", base.lockName(), workers.size(),
                    (ready - begin) / 1_000_000, (System.nanoTime() - ready) / 1_000_000);
            return new Run(checker.report(), results, workers);
        } finally {
            pool.shutdownNow();
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }
}
