package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.internal.Tokens;
import io.coordis.internal.lock.RedlockNodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.FencedClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One contender of a mutual-exclusion run, on one node or (Redlock) several: loops acquire → report ENTER to the
 * {@link io.coordis.testkit.fault.FencedResource} → tiny work → note whether the lease is still held → report
 * EXIT → release, for a fixed time counted from the resource's GO or until a number of rounds is done. Runs on a
 * thread of the test JVM or of a {@link ContenderProcess}.
 */
final class LockWorker implements Callable<LockWorker.Result> {
    /** How long a waiting worker waits per acquire call. */
    private static final Duration WAIT = Duration.ofMillis(300);

    /** How a worker takes the lock. */
    enum Style {
        /** {@link DistributedLock#acquire(Duration)} with a short wait, repeated. */
        WAITING,
        /** {@link DistributedLock#tryAcquire()} with a short random pause after "busy". */
        TRYING,
        /**
         * Deliberately broken: on one node SET without NX (always "acquires") released with a plain DEL; on
         * several, one node's yes taken for the lock ({@link RedlockCanonicalClient#singleNode}).
         */
        BROKEN
    }

    /**
     * What a run looks like; travels to child JVMs as {@code key=value} arguments.
     *
     * @param nodes    {@code host:port} of every Redis node: one for the single-node lock, at least 3 for Redlock
     * @param resource {@code host:port} of the fenced resource that referees the run
     * @param lockName the lock every worker contends for
     * @param ttl      lock TTL (renewal on)
     * @param runFor   how long each worker loops after GO
     * @param rounds   the most rounds a worker does
     * @param work     time spent inside the critical section
     * @param broken   all workers use {@link Style#BROKEN}
     */
    record Settings(List<String> nodes, String resource, String lockName, Duration ttl, Duration runFor, int rounds,
                    Duration work, boolean broken) {

        List<String> toArgs() {
            return List.of("nodes=" + String.join(",", nodes), "resource=" + resource, "lock=" + lockName,
                    "ttlMs=" + ttl.toMillis(), "runMs=" + runFor.toMillis(), "rounds=" + rounds,
                    "workMicros=" + work.toNanos() / 1000, "broken=" + broken);
        }

        static Settings fromArgs(Map<String, String> a) {
            return new Settings(Arrays.asList(a.get("nodes").split(",")), a.get("resource"), a.get("lock"),
                    Duration.ofMillis(Long.parseLong(a.get("ttlMs"))), Duration.ofMillis(Long.parseLong(a.get("runMs"))),
                    Integer.parseInt(a.get("rounds")), Duration.ofNanos(Long.parseLong(a.get("workMicros")) * 1000),
                    Boolean.parseBoolean(a.get("broken")));
        }

        Settings withResource(String address) {
            return new Settings(nodes, address, lockName, ttl, runFor, rounds, work, broken);
        }

        boolean redlock() {
            return nodes.size() > 1;
        }

        /** For Redlock: no restart guard (nodes restart empty on purpose) and quick retries. */
        LockOptions options() {
            LockOptions options = LockOptions.defaults().withTtl(ttl);
            return redlock() ? options.withRestartGuard(false).withRetryDelay(Duration.ofMillis(40)) : options;
        }

        List<String> uris() {
            return nodes.stream().map(n -> "redis://" + n).toList();
        }
    }

    /**
     * How one worker fared.
     *
     * @param rounds     critical sections completed
     * @param busy       acquisitions that came back empty (busy, or the short wait ran out)
     * @param errors     CoordisExceptions from acquire or release (expected while Redlock nodes are down)
     * @param lostInside rounds where the lease was no longer held when the worker left the critical section
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
    private final Style style;
    private final Coordis client;
    private final Settings settings;

    LockWorker(String id, Style style, Coordis client, Settings settings) {
        this.id = id;
        this.style = style;
        this.client = client;
        this.settings = settings;
    }

    String id() {
        return id;
    }

    @Override
    public Result call() throws Exception {
        try (FencedClient resource = FencedClient.connect(settings.resource(), id)) {
            if (style != Style.BROKEN) {
                resource.awaitStart();
                return runCoordis(resource);
            }
            if (settings.redlock()) {
                try (RedlockCanonicalClient broken = RedlockCanonicalClient.singleNode(settings.nodes())) {
                    resource.awaitStart();
                    return runBroken(resource, broken);
                }
            }
            resource.awaitStart();
            return runBroken(resource);
        }
    }

    private Result runCoordis(FencedClient resource) throws InterruptedException {
        DistributedLock lock = client.lock(settings.lockName(), settings.options());
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        int busy = 0;
        int errors = 0;
        int lost = 0;
        while (rounds < settings.rounds() && System.nanoTime() - deadline < 0) {
            Optional<Lease> acquired;
            try {
                acquired = style == Style.WAITING ? lock.acquire(WAIT) : lock.tryAcquire();
            } catch (CoordisException e) {
                errors++;
                pause();
                continue;
            }
            if (acquired.isEmpty()) {
                busy++;
                if (style == Style.TRYING) {
                    pause();
                }
                continue;
            }
            Lease lease = acquired.get();
            try {
                resource.enter(lease.fencingToken());
                LockSupport.parkNanos(settings.work().toNanos());
                if (!lease.isHeld()) {
                    lost++;
                }
                resource.exit(lease.fencingToken());
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

    /** A short random pause after "busy" or an error: longer for Redlock, whose attempts cost more. */
    private void pause() {
        long max = settings.redlock() ? 20_000_000 : 2_000_000;
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(max / 10, max));
    }

    /** SET without NX, so every worker "gets" the lock, and plain DEL, which frees whoever holds it. */
    private Result runBroken(FencedClient resource) {
        String node = settings.nodes().get(0);
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        String key = Prefixed.key(settings.lockName());
        String fenceKey = Prefixed.key(settings.lockName() + ":broken-fence");
        try (RespClient redis = RespClient.connect(node.substring(0, node.lastIndexOf(':')),
                Integer.parseInt(node.substring(node.lastIndexOf(':') + 1)))) {
            while (rounds < settings.rounds() && System.nanoTime() - deadline < 0) {
                long fence = (Long) redis.command("INCR", fenceKey);
                redis.command("SET", key, Tokens.next(), "PX", Long.toString(settings.ttl().toMillis()));
                resource.enter(fence);
                LockSupport.parkNanos(settings.work().toNanos());
                resource.exit(fence);
                redis.command("DEL", key);
                rounds++;
            }
        }
        return new Result(id, rounds, 0, 0, 0);
    }

    /** One node's yes taken for the lock; a per-worker counter stands in for a fencing number. */
    private Result runBroken(FencedClient resource, RedlockCanonicalClient broken) {
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        int busy = 0;
        String key = Prefixed.key(settings.lockName());
        while (rounds < settings.rounds() && System.nanoTime() - deadline < 0) {
            Optional<String> value = broken.tryLock(key, settings.ttl());
            if (value.isEmpty()) {
                busy++;
                continue;
            }
            resource.enter(rounds + 1);
            LockSupport.parkNanos(settings.work().toNanos());
            resource.exit(rounds + 1);
            broken.unlock(key, value.get());
            rounds++;
        }
        return new Result(id, rounds, busy, 0, 0);
    }

    /**
     * The workers of one process and the clients they use. On one node, Coordis workers alternate styles and
     * share clients in a mix: per group of four, two waiting workers share one client, a waiting and a trying
     * worker each have their own. On several nodes (Redlock) every worker has its own client, warmed up on
     * every node, and waiting and trying workers alternate.
     */
    static final class Crew implements AutoCloseable {
        private final List<Coordis> clients = new ArrayList<>();
        private final List<LockWorker> workers = new ArrayList<>();

        Crew(String prefix, int threads, Settings settings) throws InterruptedException {
            this(prefix, threads, settings, false);
        }

        /** With {@code oneClient}, every worker waits for the lock through one shared client (local hand-offs). */
        Crew(String prefix, int threads, Settings settings, boolean oneClient) throws InterruptedException {
            try {
                Coordis shared = settings.broken() || settings.redlock() ? null : connect(settings);
                for (int i = 0; i < threads; i++) {
                    String id = prefix + "-t" + i;
                    if (settings.broken()) {
                        workers.add(new LockWorker(id, Style.BROKEN, null, settings));
                    } else if (settings.redlock()) {
                        workers.add(new LockWorker(id, i % 2 == 0 ? Style.WAITING : Style.TRYING, connect(settings), settings));
                    } else if (oneClient) {
                        workers.add(new LockWorker(id, Style.WAITING, shared, settings));
                    } else {
                        switch (i % 4) {
                            case 0, 1 -> workers.add(new LockWorker(id, Style.WAITING, shared, settings));
                            case 2 -> workers.add(new LockWorker(id, Style.WAITING, connect(settings), settings));
                            default -> workers.add(new LockWorker(id, Style.TRYING, connect(settings), settings));
                        }
                    }
                }
            } catch (RuntimeException | InterruptedException e) {
                close();
                throw e;
            }
        }

        /** A client of its own; for Redlock, one that reached every node already. */
        private Coordis connect(Settings settings) throws InterruptedException {
            Coordis c = TestClients.connect(settings.uris());
            clients.add(c);
            if (settings.redlock()) {
                RedlockNodes.warmUp(c, settings.nodes().size(), settings.ttl());
            }
            return c;
        }

        List<LockWorker> workers() {
            return workers;
        }

        @Override
        public void close() {
            for (Coordis c : clients) {
                try {
                    c.close();
                } catch (RuntimeException ignored) {
                    // closing anyway
                }
            }
        }
    }
}
