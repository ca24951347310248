package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.FencedClient;
import io.coordis.testkit.history.History;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A lock client process for the fault runs: several threads take the lock, enter the fenced resource, write
 * twice with their fencing token, leave, release. Runs until stdin closes, then prints one line
 * {@code STATS cycles=N errors=N late=N maxLateMs=N lateThrown=N} and exits. Late: acquire calls that ended
 * more than 1 s after their wait, whether they returned or threw (Redis down or paused: a typed error must
 * come as promptly as a timeout); lateThrown: how many of those threw; maxLateMs: the most any call overran
 * (0 if none did).
 *
 * <p>Modes: {@code coordis} (the real lock); {@code fair} (the real lock, fair); and the broken variants the checkers must flag:
 * {@code no-nx} (a raw {@code SET} without NX plus an INCR for the token: holders overlap),
 * {@code no-fence} (the real lock, but every write carries token 0: the resource cannot order holders) and
 * {@code late-throw} (an acquire that fails only 1.2 s after its wait: every call is late).
 *
 * <p>Arguments: redis-host:port[,host:port...] (several: Redlock) resource-host:port lock-name mode threads ttl-ms wait-ms name
 * [latency-file|- [history-file]]
 * <br>With a latency file, the time each successful acquire call took (ns) is written to it as 8-byte numbers
 * before {@code STATS} is printed (the soak runs' acquire percentiles).
 * <br>With a history file, every thread records its steps there for {@code LockChecker} (process {@code name}):
 * {@code invoke acquire}, then {@code ok acquire} with the token it writes with (0 in {@code no-fence}, the
 * {@code INCR} in {@code no-nx}), {@code fail acquire} (not acquired within the wait) or {@code info acquire}
 * (the call threw: it may have taken the key); {@code invoke release} once it has left the resource, then
 * {@code ok release} or {@code info release}.
 * <br>With name {@code holder}: one thread takes the lock once, enters, prints {@code HOLDING token}, waits
 * for a line on stdin (the test pauses this process meanwhile), writes, prints {@code WROTE ok|stale},
 * leaves and exits. With name {@code cued-holder}: the same, but it first prints {@code READY} and takes the
 * lock only when a line arrives on stdin (so a test can start the JVM early and have it take the lock
 * in the middle of a run).
 */
public final class FenceWorker {
    /** How a thread tries to take the lock. */
    private interface Acquirer {
        Optional<Lease> acquire(Duration wait) throws InterruptedException;
    }

    private FenceWorker() {
    }

    public static void main(String[] args) throws Exception {
        String redis = args[0];
        String resource = args[1];
        String lockName = args[2];
        String mode = args[3];
        int threads = Integer.parseInt(args[4]);
        Duration ttl = Duration.ofMillis(Long.parseLong(args[5]));
        Duration wait = Duration.ofMillis(Long.parseLong(args[6]));
        String name = args[7];
        java.nio.file.Path latencyFile = args.length > 8 && !args[8].equals("-") ? java.nio.file.Path.of(args[8]) : null;
        try (Coordis coordis = connectTo(redis);
             Steps steps = new Steps(args.length > 9 ? History.open(java.nio.file.Path.of(args[9]), name) : null, lockName)) {
            DistributedLock lock = coordis.lock(lockName, LockOptions.defaults().withTtl(ttl)
                    .withFair(mode.equals("fair")));
            if (name.equals("holder") || name.equals("cued-holder")) {
                java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
                if (name.equals("cued-holder")) {
                    System.out.println("READY");
                    in.readLine();
                }
                holdOnce(lock, resource, steps, name, in);
                return;
            }
            Acquirer acquirer = mode.equals("late-throw") ? w -> {
                Thread.sleep(w.toMillis() + 1200);
                throw new IllegalStateException("late-throw: no answer from Redis 1.2 s past the wait");
            } : lock::acquire;
            AtomicLong cycles = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            AtomicLong late = new AtomicLong();
            AtomicLong lateThrown = new AtomicLong();
            AtomicLong maxLate = new AtomicLong();
            List<long[]> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String client = name + "-" + t;
                Thread w = new Thread(() -> {
                    long[] took = new long[4096];
                    int tookCount = 0;
                    try (FencedClient fenced = FencedClient.connect(resource, client);
                         RespClient raw = mode.equals("no-nx") ? connect(redis) : null) {
                        while (!Thread.currentThread().isInterrupted()) {
                            long start = System.nanoTime();
                            try {
                                if (mode.equals("no-nx")) {
                                    brokenCycle(raw, lockName, ttl, fenced, steps);
                                    cycles.incrementAndGet();
                                    continue;
                                }
                                Optional<Lease> got;
                                boolean threw = true;
                                steps.record("invoke", "acquire", -1);
                                try {
                                    got = acquirer.acquire(wait);
                                    threw = false;
                                } finally {
                                    if (threw) {
                                        steps.record("info", "acquire", -1);
                                    }
                                    // timed whether it returned or threw
                                    long overMs = (System.nanoTime() - start) / 1_000_000 - wait.toMillis();
                                    if (overMs > 1000) {
                                        late.incrementAndGet();
                                        if (threw) {
                                            lateThrown.incrementAndGet();
                                        }
                                    }
                                    maxLate.accumulateAndGet(overMs, Math::max);
                                }
                                if (got.isEmpty()) {
                                    steps.record("fail", "acquire", -1);
                                    continue;
                                }
                                if (tookCount == took.length) {
                                    took = java.util.Arrays.copyOf(took, tookCount * 2);
                                }
                                took[tookCount++] = System.nanoTime() - start;
                                Lease lease = got.get();
                                long token = mode.equals("no-fence") ? 0 : lease.fencingToken();
                                steps.record("ok", "acquire", token);
                                try {
                                    fenced.enter(token);
                                    try {
                                        fenced.write(token);
                                        Thread.sleep(1);
                                        fenced.write(token);
                                    } finally {
                                        // leave before the lease is released, also when stopped mid-way:
                                        // otherwise the resource sees this client inside forever
                                        fenced.exit(token);
                                    }
                                } finally {
                                    steps.release(lease, token);
                                }
                                cycles.incrementAndGet();
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                errors.incrementAndGet(); // Redis down or paused: typed errors, try again
                                sleep(20);
                            }
                        }
                    } finally {
                        latencies.add(java.util.Arrays.copyOf(took, tookCount));
                    }
                }, client);
                w.setDaemon(true);
                workers.add(w);
                w.start();
            }
            System.out.println("READY");
            while (System.in.read() >= 0) {
                // until the test closes stdin
            }
            workers.forEach(Thread::interrupt);
            for (Thread w : workers) {
                w.join(5000);
            }
            if (latencyFile != null) {
                writeLatencies(latencyFile, latencies);
            }
            System.out.println("STATS cycles=" + cycles + " errors=" + errors + " late=" + late + " maxLateMs=" + maxLate
                    + " lateThrown=" + lateThrown);
        }
    }

    private static void holdOnce(DistributedLock lock, String resource, Steps steps, String name,
                                 java.io.BufferedReader in) throws Exception {
        try (FencedClient fenced = FencedClient.connect(resource, name)) {
            steps.record("invoke", "acquire", -1);
            Lease lease = lock.acquire(Duration.ofSeconds(30)).orElseThrow();
            long token = lease.fencingToken();
            steps.record("ok", "acquire", token);
            fenced.enter(token);
            System.out.println("HOLDING " + token);
            in.readLine();
            boolean ok = fenced.write(token);
            System.out.println("WROTE " + (ok ? "ok" : "stale") + " held=" + lease.isHeld());
            fenced.exit(token);
            steps.release(lease, token);
        }
    }

    private static void writeLatencies(java.nio.file.Path file, List<long[]> latencies) throws java.io.IOException {
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(new java.io.BufferedOutputStream(
                java.nio.file.Files.newOutputStream(file)))) {
            synchronized (latencies) {
                for (long[] perThread : latencies) {
                    for (long nanos : perThread) {
                        out.writeLong(nanos);
                    }
                }
            }
        }
    }

    /** The broken lock: SET without NX, so a second client simply overwrites the first. */
    private static void brokenCycle(RespClient raw, String lockName, Duration ttl, FencedClient fenced, Steps steps)
            throws InterruptedException {
        steps.record("invoke", "acquire", -1);
        long token = (Long) raw.command("INCR", Prefixed.key(lockName + ":broken-fence"));
        raw.command("SET", Prefixed.key(lockName), Long.toString(token), "PX", Long.toString(ttl.toMillis()));
        steps.record("ok", "acquire", token);
        fenced.enter(token);
        fenced.write(token);
        Thread.sleep(1);
        fenced.write(token);
        fenced.exit(token);
        steps.record("invoke", "release", token);
        raw.command("DEL", Prefixed.key(lockName));
        steps.record("ok", "release", token);
    }

    /** The history of this process, or nothing when no file was given. */
    private record Steps(History history, String lockName) implements AutoCloseable {
        void record(String type, String f, long token) {
            if (history != null) {
                history.record(type, f, lockName, "", token);
            }
        }

        /** Releases {@code lease}, recorded: {@code invoke}, then {@code ok} or {@code info} if it threw. */
        void release(Lease lease, long token) {
            record("invoke", "release", token);
            try {
                lease.close();
            } catch (RuntimeException e) {
                record("info", "release", token);
                throw e;
            }
            record("ok", "release", token);
        }

        @Override
        public void close() {
            if (history != null) {
                history.close();
            }
        }
    }

    /** One {@code host:port} (single node) or several, comma-separated (Redlock). */
    private static Coordis connectTo(String redis) {
        List<String> urls = java.util.Arrays.stream(redis.split(",")).map(a -> "redis://" + a).toList();
        return TestClients.builder().urls(urls).commandTimeout(Duration.ofMillis(500)).connect();
    }

    private static RespClient connect(String redis) {
        int colon = redis.lastIndexOf(':');
        return RespClient.connect(redis.substring(0, colon), Integer.parseInt(redis.substring(colon + 1)));
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
