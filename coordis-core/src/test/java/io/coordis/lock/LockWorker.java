package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.internal.Tokens;
import io.coordis.testing.CheckerClient;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RespClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One contender of a mutual-exclusion run: loops acquire → report ENTER → tiny work → report EXIT →
 * release, for a fixed time counted from the checker's GO or until a number of rounds is done.
 * Runs on a thread of the test JVM or of a {@link ContenderProcess}.
 */
final class LockWorker implements Callable<LockWorker.Result> {

    /** How a worker takes the lock. */
    enum Style {
        /** {@link DistributedLock#acquire(Duration)} with a short wait, repeated. */
        WAITING,
        /** {@link DistributedLock#tryAcquire()} with a short random pause after "busy". */
        TRYING,
        /** Deliberately broken: SET without NX (always "acquires"), released with plain DEL. */
        BROKEN
    }

    /**
     * What a run looks like; travels to child JVMs as {@code key=value} arguments.
     *
     * @param redis    {@code host:port} of Redis
     * @param checker  the checker's loopback port
     * @param lockName the lock every worker contends for
     * @param ttl      lock TTL (renewal on)
     * @param runFor   how long each worker loops after GO
     * @param rounds   the most rounds a worker does
     * @param work     time spent inside the critical section
     * @param broken   all workers use {@link Style#BROKEN}
     */
    record Settings(String redis, int checker, String lockName, Duration ttl, Duration runFor, int rounds,
                    Duration work, boolean broken) {

        List<String> toArgs() {
            return List.of("redis=" + redis, "checker=" + checker, "lock=" + lockName, "ttlMs=" + ttl.toMillis(),
                    "runMs=" + runFor.toMillis(), "rounds=" + rounds, "workMicros=" + work.toNanos() / 1000,
                    "broken=" + broken);
        }

        static Settings fromArgs(Map<String, String> a) {
            return new Settings(a.get("redis"), Integer.parseInt(a.get("checker")), a.get("lock"),
                    Duration.ofMillis(Long.parseLong(a.get("ttlMs"))), Duration.ofMillis(Long.parseLong(a.get("runMs"))),
                    Integer.parseInt(a.get("rounds")), Duration.ofNanos(Long.parseLong(a.get("workMicros")) * 1000),
                    Boolean.parseBoolean(a.get("broken")));
        }

        String uri() {
            return "redis://" + redis;
        }
    }

    /**
     * How one worker fared.
     *
     * @param rounds     critical sections completed
     * @param busy       acquisitions that came back empty (busy, or the short wait ran out)
     * @param errors     CoordisExceptions from acquire or release
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
        try (CheckerClient checker = new CheckerClient(settings.checker(), id)) {
            checker.awaitStart();
            return style == Style.BROKEN ? runBroken(checker) : runCoordis(checker);
        }
    }

    private Result runCoordis(CheckerClient checker) throws InterruptedException {
        DistributedLock lock = client.lock(settings.lockName(), LockOptions.defaults().withTtl(settings.ttl()));
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        int busy = 0;
        int errors = 0;
        int lost = 0;
        while (rounds < settings.rounds() && System.nanoTime() < deadline) {
            Optional<Lease> acquired;
            try {
                acquired = style == Style.WAITING ? lock.acquire(Duration.ofMillis(500)) : lock.tryAcquire();
            } catch (CoordisException e) {
                errors++;
                continue;
            }
            if (acquired.isEmpty()) {
                busy++;
                if (style == Style.TRYING) {
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000, 2_000_000));
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

    /** SET without NX, so every worker "gets" the lock, and plain DEL, which frees whoever holds it. */
    private Result runBroken(CheckerClient checker) {
        String host = settings.redis().substring(0, settings.redis().lastIndexOf(':'));
        int port = Integer.parseInt(settings.redis().substring(settings.redis().lastIndexOf(':') + 1));
        long deadline = System.nanoTime() + settings.runFor().toNanos();
        int rounds = 0;
        String key = Prefixed.key(settings.lockName());
        String fenceKey = Prefixed.key(settings.lockName() + ":broken-fence");
        try (RespClient redis = RespClient.connect(host, port)) {
            while (rounds < settings.rounds() && System.nanoTime() < deadline) {
                long fence = (Long) redis.command("INCR", fenceKey);
                redis.command("SET", key, Tokens.next(), "PX", Long.toString(settings.ttl().toMillis()));
                checker.enter(fence);
                LockSupport.parkNanos(settings.work().toNanos());
                checker.exit(fence);
                redis.command("DEL", key);
                rounds++;
            }
        }
        return new Result(id, rounds, 0, 0, 0);
    }

    /**
     * The workers of one process and the clients they use. Coordis workers alternate styles and share
     * clients in a mix: per group of four, two waiting workers share one client, a waiting and a trying
     * worker each have their own.
     */
    static final class Crew implements AutoCloseable {
        private final List<Coordis> clients = new ArrayList<>();
        private final List<LockWorker> workers = new ArrayList<>();

        Crew(String prefix, int threads, Settings settings) {
            this(prefix, threads, settings, false);
        }

        /** With {@code oneClient}, every worker waits for the lock through one shared client (local hand-offs). */
        Crew(String prefix, int threads, Settings settings, boolean oneClient) {
            try {
                Coordis shared = settings.broken() ? null : connect(settings);
                for (int i = 0; i < threads; i++) {
                    String id = prefix + "-t" + i;
                    if (oneClient && !settings.broken()) {
                        workers.add(new LockWorker(id, Style.WAITING, shared, settings));
                        continue;
                    }
                    if (settings.broken()) {
                        workers.add(new LockWorker(id, Style.BROKEN, null, settings));
                        continue;
                    }
                    switch (i % 4) {
                        case 0, 1 -> workers.add(new LockWorker(id, Style.WAITING, shared, settings));
                        case 2 -> workers.add(new LockWorker(id, Style.WAITING, connect(settings), settings));
                        default -> workers.add(new LockWorker(id, Style.TRYING, connect(settings), settings));
                    }
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        private Coordis connect(Settings settings) {
            Coordis c = TestClients.connect(settings.uri());
            clients.add(c);
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
