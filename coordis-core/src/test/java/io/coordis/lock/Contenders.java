package io.coordis.lock;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.fault.FencedResource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A mutual-exclusion run: contender JVMs ({@link ContenderProcess}) and workers in this JVM, all refereed by one
 * {@link FencedResource} on one clock, released together by its GO.
 */
final class Contenders {
    private static final int CHILDREN = 2;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /** What the resource saw and what every worker reported. */
    record Run(FencedResource.Report report, List<LockWorker.Result> results, List<String> workers) {
        int lostInside() {
            return results.stream().mapToInt(LockWorker.Result::lostInside).sum();
        }

        int rounds() {
            return results.stream().mapToInt(LockWorker.Result::rounds).sum();
        }

        String detail() {
            return "report: " + report + "\nworkers: " + results;
        }
    }

    private Contenders() {
    }

    /**
     * Starts two contender JVMs with {@code threadsPerChild} workers each plus {@code localThreads} workers in
     * this JVM, releases them together, calls {@code atGo} right after GO, and waits for every worker to finish.
     *
     * @param oneClient every worker of a process waits through one shared client (single node only)
     */
    static Run run(LockWorker.Settings base, int threadsPerChild, int localThreads, boolean oneClient, Runnable atGo)
            throws Exception {
        List<ChildJvm> children = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, localThreads));
        long begin = System.nanoTime();
        try (FencedResource resource = FencedResource.start()) {
            LockWorker.Settings settings = base.withResource(resource.address());
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
                awaitGreetings(resource, workers.size(), futures, children);
                long ready = System.nanoTime();
                resource.go();
                atGo.run();

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
                System.out.printf("%s: %d workers ready after %d ms, done %d ms after GO%n", base.lockName(),
                        workers.size(), (ready - begin) / 1_000_000, (System.nanoTime() - ready) / 1_000_000);
                return new Run(resource.report(), results, workers);
            }
        } finally {
            pool.shutdownNow();
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }

    /** Waits for every worker's HELLO; fails at once when a worker or a contender JVM died before it. */
    private static void awaitGreetings(FencedResource resource, int workers, List<Future<LockWorker.Result>> local,
                                       List<ChildJvm> children) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!resource.awaitGreetings(workers, Duration.ofMillis(200))) {
            for (Future<LockWorker.Result> f : local) {
                if (f.isDone()) {
                    throw new AssertionError("a local worker ended before GO: " + f.get());
                }
            }
            for (ChildJvm child : children) {
                assertThat(child.isAlive() && child.lines().stream().noneMatch(l -> l.startsWith("FAILED")))
                        .as("contender died before GO: %s", child.describe()).isTrue();
            }
            assertThat(System.nanoTime() - deadline).as("workers greeted the resource within %s", START_TIMEOUT)
                    .isNegative();
        }
    }
}
