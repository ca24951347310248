package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.testing.CheckerClient;
import io.coordis.testkit.Prefixed;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One contender of a Redlock mutual-exclusion run: acquire → ENTER → tiny work → note whether the lease is
 * still valid → EXIT → release, in a loop for a fixed time after the checker's GO. Its own client over all
 * nodes, or (broken) the raw single-node-counts variant. Runs in the test JVM or in a
 * {@link RedlockContenderProcess}.
 */
final class RedlockWorker implements Callable<RedlockWorker.Result> {

    /**
     * A run's settings; travel to child JVMs as {@code key=value} arguments.
     *
     * @param nodes    {@code host:port} of every node
     * @param checker  the checker's loopback port
     * @param lockName the lock every worker contends for
     * @param ttl      lock TTL (renewal on)
     * @param runFor   how long each worker loops after GO
     * @param work     time inside the critical section
     * @param broken   use {@link RedlockCanonicalClient#singleNode} instead of Coordis
     */
    record Settings(List<String> nodes, int checker, String lockName, Duration ttl, Duration runFor, Duration work,
                    boolean broken) {

        List<String> toArgs() {
            return List.of("nodes=" + String.join(",", nodes), "checker=" + checker, "lock=" + lockName,
                    "ttlMs=" + ttl.toMillis(), "runMs=" + runFor.toMillis(), "workMicros=" + work.toNanos() / 1000,
                    "broken=" + broken);
        }

        static Settings fromArgs(Map<String, String> a) {
            return new Settings(Arrays.asList(a.get("nodes").split(",")), Integer.parseInt(a.get("checker")),
                    a.get("lock"), Duration.ofMillis(Long.parseLong(a.get("ttlMs"))),
                    Duration.ofMillis(Long.parseLong(a.get("runMs"))),
                    Duration.ofNanos(Long.parseLong(a.get("workMicros")) * 1000), Boolean.parseBoolean(a.get("broken")));
        }

        Settings withChecker(int port) {
            return new Settings(nodes, port, lockName, ttl, runFor, work, broken);
        }

        LockOptions options() {
            return LockOptions.defaults().withTtl(ttl).withRestartGuard(false).withRetryDelay(Duration.ofMillis(40));
        }
    }

    /**
     * How one worker fared.
     *
     * @param rounds     critical sections completed
     * @param busy       acquisitions that came back empty
     * @param errors     CoordisExceptions from acquire or release (expected while nodes are down)
     * @param lostInside rounds whose lease was no longer valid right before EXIT
     */
    record Result(String worker, int rounds, int busy, int errors, int lostInside) {

        String toLine() {
            return "DONE " + worker + " rounds=" + rounds + " busy=" + busy + " errors=" + errors + " lostInside=" + lostInside;
        }

        static Result fromLine(String line) {
            String[] p = line.split(" ");
            Map<String, String> v = new LinkedHashMap<>();
            for (int i = 2; i < p.length; i++) {
                String[] kv = p[i].split("=", 2);
                v.put(kv[0], kv[1]);
            }
            return new Result(p[1], Integer.parseInt(v.get("rounds")), Integer.parseInt(v.get("busy")),
                    Integer.parseInt(v.get("errors")), Integer.parseInt(v.get("lostInside")));
        }
    }

    private final String id;
    private final Settings settings;
    private final boolean waiting;

    /** @param waiting acquire with a short wait (retries inside); otherwise tryAcquire and a short pause */
    RedlockWorker(String id, Settings settings, boolean waiting) {
        this.id = id;
        this.settings = settings;
        this.waiting = waiting;
    }

    String id() {
        return id;
    }

    @Override
    public Result call() throws Exception {
        try (CheckerClient checker = new CheckerClient(settings.checker(), id)) {
            if (settings.broken()) {
                try (RedlockCanonicalClient broken = RedlockCanonicalClient.singleNode(settings.nodes())) {
                    checker.awaitStart();
                    return runBroken(checker, broken);
                }
            }
            try (Coordis client = TestClients.connect(settings.nodes().stream().map(n -> "redis://" + n).toList())) {
                RedlockNodes.warmUp(client, settings.nodes().size(), settings.ttl());
                checker.awaitStart();
                return runCoordis(checker, client.lock(settings.lockName(), settings.options()));
            }
        }
    }

    private Result runCoordis(CheckerClient checker, DistributedLock lock) throws InterruptedException {
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        int busy = 0;
        int errors = 0;
        int lost = 0;
        while (System.nanoTime() - deadline < 0) {
            Optional<Lease> acquired;
            try {
                acquired = waiting ? lock.acquire(Duration.ofMillis(300)) : lock.tryAcquire();
            } catch (CoordisException e) {
                errors++;
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000, 20_000_000));
                continue;
            }
            if (acquired.isEmpty()) {
                busy++;
                if (!waiting) {
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000, 20_000_000));
                }
                continue;
            }
            Lease lease = acquired.get();
            try {
                checker.enter(lease.fencingToken());
                LockSupport.parkNanos(settings.work().toNanos());
                if (!lease.isHeld()) {
                    lost++;
                }
                checker.exit(lease.fencingToken());
            } finally {
                try {
                    lease.release();
                } catch (CoordisException e) {
                    errors++;
                }
            }
            rounds++;
        }
        return new Result(id, rounds, busy, errors, lost);
    }

    private Result runBroken(CheckerClient checker, RedlockCanonicalClient broken) {
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        int busy = 0;
        long fence = 0;
        String key = Prefixed.key(settings.lockName());
        while (System.nanoTime() - deadline < 0) {
            Optional<String> value = broken.tryLock(key, settings.ttl());
            if (value.isEmpty()) {
                busy++;
                continue;
            }
            // the checker judges overlaps; a per-worker counter stands in for a fencing number
            fence++;
            checker.enter(fence);
            LockSupport.parkNanos(settings.work().toNanos());
            checker.exit(fence);
            broken.unlock(key, value.get());
            rounds++;
        }
        return new Result(id, rounds, busy, 0, 0);
    }
}
