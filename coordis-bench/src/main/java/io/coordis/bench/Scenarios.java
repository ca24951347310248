package io.coordis.bench;

import io.coordis.lock.LockOptions;
import io.coordis.ratelimit.RateLimit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntUnaryOperator;

/**
 * The registry of scenarios, in the order they run. To add one, write its {@link Workload}s, list a
 * {@link Scenario} in {@link #all()} with the targets, and the runner, the rotation and the report
 * pick it up.
 *
 * <p>The reliable queue runs twice: per message (every client pushes, takes and acks one message per call)
 * and with Coordis's batch API ({@link #QUEUE_BATCH} messages per push, take and ack) against the same raw
 * Lettuce per-message loop, as the "≥ 3 × with the batch API" compares.
 */
final class Scenarios {
    /** The series of Redlock cost growth (3, 5, 7 masters). */
    static final String REDLOCK_GROWTH = "Redlock cost growth";
    /** The series of contended cost growth (2, 8, 32 threads). */
    static final String CONTENDED_GROWTH = "Contended cost growth";
    /** Messages per call of the Coordis batch API in the batched queue scenario. */
    static final int QUEUE_BATCH = 32;
    /** Unacknowledged messages the queue producer allows (the queue stays short). */
    static final int QUEUE_WINDOW = 256;
    /** Permits of the uncontended semaphore scenario; the contended one has fewer than its threads. */
    static final int SEMAPHORE_PERMITS = 4;
    /** Signals a second in the signal scenario. */
    static final int SIGNALS_PER_SECOND = 1_000;
    /** The hot limiter's limit: far above what 16 threads reach, so that every decision is a grant. */
    static final RateLimit HOT_LIMIT = RateLimit.of(1_000_000, Duration.ofSeconds(1));
    /** Threads of the hot limiter scenario, all on one name. */
    static final int HOT_THREADS = 16;
    /** The accuracy scenarios' limit, asked for ten times over. */
    static final RateLimit ACCURACY_LIMIT = RateLimit.of(200, Duration.ofSeconds(1));
    /** Askers of the accuracy scenarios (threads, or JVMs with skewed clocks), each asking a quarter of ten times. */
    static final int ACCURACY_ASKERS = 4;
    /** The asking JVMs' clocks in the skewed accuracy scenario, against the real one. */
    static final List<Duration> SKEWS =
            List.of(Duration.ofHours(1), Duration.ofHours(-1), Duration.ofHours(1), Duration.ofHours(-1));
    /** The accuracy scenario whose askers' clocks are skewed: it needs {@code faketime}. */
    static final String SKEWED_ACCURACY = "ratelimit-accuracy-skewed";

    /** The hand-off inside one client: a release's start to the next waiting thread's acquire returning. */
    private static final Target HANDOFF_P50 =
            Target.absolute("hand-off p50 ≤ 20 µs inside one client", "handoffP50Us", false, 20);

    private static final List<String> SINGLE = List.of("coordis", "redisson", "lettuce");
    /** The lock clients of the single-server lock scenarios (also what {@link SameJvmLocks} accepts). */
    static final List<String> SINGLE_LOCKS = List.of("coordis", "redisson", "lettuce", "lettuce-scripts");
    private static final List<String> CONTENDED = List.of("coordis", "redisson", "lettuce-spin");
    /** With 8 threads, also Coordis without the pause for clients that poll without marking (p99 apart). */
    private static final List<String> CONTENDED_8 = List.of("coordis", "redisson", "lettuce-spin", "coordis-no-yield");
    /** Coordis's semaphore against Redisson's two: {@code RSemaphore} and {@code RPermitExpirableSemaphore}. */
    private static final List<String> SEMAPHORES = List.of("coordis", "redisson-semaphore", "redisson-expirable");
    private static final List<String> LIMITERS = List.of("coordis", "redisson");
    private static final List<String> REDLOCK =
            List.of("coordis", "redisson-multilock", "redisson-redlock", "lettuce-sequential", "lettuce-parallel");
    private static final List<String> REDLOCK_SERIES =
            List.of("coordis", "redisson-multilock", "lettuce-sequential", "lettuce-parallel");

    private Scenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.add(new Scenario("lock-uncontended", "Uncontended lock cycle: 1 thread, 1 key (Coordis reads the fencing number)",
                null, null, 1, false, SINGLE_LOCKS, "opsPerSec", true, List.of(
                        Target.ratio("≥ 1.5 × Redisson ops/s", "opsPerSec", "redisson", true, 1.5),
                        Target.ratio("fenced protocol ≥ 0.9 × raw SET NX (lettuce) ops/s", "opsPerSec", "lettuce", true, 0.9)),
                locks(1, 1, t -> 0, LockLoop.Mode.TRY)));
        all.add(sameJvm(1, List.of(Target.absolute("≥ 0.97 × lettuce-scripts, same JVM (median over blocks)",
                "sameJvmRatio", true, 0.97))));
        all.add(contended(2, CONTENDED, List.of()));
        all.add(contended(8, CONTENDED_8, List.of(
                Target.ratio("≥ 3 × Redisson throughput", "opsPerSec", "redisson", true, 3.0),
                Target.absolute("acquire-wait p99 ≤ 1 ms", "acquireP99Us", false, 1000),
                Target.spread("no thread starves (slowest thread ≥ 0.5 × fastest)", "threadMinOps", "threadMaxOps", true, 0.5),
                HANDOFF_P50,
                Target.absolute("never two holders at once", "violations", false, 0))));
        all.add(contended(32, CONTENDED, List.of(
                Target.growth("throughput does not fall as threads grow (32 ÷ 2 threads ≥ 0.9)", "opsPerSec",
                        "lock-contended-2", true, 0.9))));
        all.add(new Scenario("lock-many-keys", "Many keys: 16 threads, each on its own key", null, null, 1, false,
                SINGLE_LOCKS, "opsPerSec", true, List.of(
                        Target.ratio("≥ 3 × Redisson ops/s", "opsPerSec", "redisson", true, 3.0),
                        Target.ratio("fenced protocol ≥ 0.9 × raw SET NX (lettuce) ops/s", "opsPerSec", "lettuce", true, 0.9)),
                locks(16, 16, t -> t, LockLoop.Mode.TRY)));
        all.add(sameJvm(16, List.of(Target.absolute("≥ 0.97 × lettuce-scripts, same JVM (median over blocks)",
                "sameJvmRatio", true, 0.97))));
        all.add(redlock(3, REDLOCK_SERIES, List.of()));
        all.add(redlock(5, REDLOCK, List.of(
                Target.ratio("≥ 0.9 × raw parallel Lettuce", "opsPerSec", "lettuce-parallel", true, 0.9),
                Target.ratio("≥ 3 × Redisson (RedissonMultiLock; RedissonRedLock is deprecated in 4.x)", "opsPerSec",
                        "redisson-multilock", true, 3.0))));
        all.add(redlock(7, REDLOCK_SERIES, List.of(
                Target.growthRatio("p50 growth 3 → 7 masters ≤ 1.15 × raw parallel Lettuce's growth", "acquireP50Us",
                        "redlock-3", "lettuce-parallel", false, 1.15))));
        all.add(new Scenario("signal-latency", "Signal → wake latency at " + SIGNALS_PER_SECOND + " signals/s",
                null, null, 1, false, SINGLE, "p50Us", false, List.of(
                        Target.ratio("p50 ≤ 1.05 × raw Lettuce", "p50Us", "lettuce", false, 1.05),
                        Target.ratio("p99 ≤ 1.05 × raw Lettuce", "p99Us", "lettuce", false, 1.05)),
                (impl, uris) -> new SignalLatency(signaling(impl, uris.get(0)), "bench:signal", SIGNALS_PER_SECOND)));
        all.add(new Scenario("queue-reliable", "Reliable queue: 1 producer + 4 consumers (push, take, ack), per message",
                null, null, 1, false, SINGLE, "opsPerSec", true, List.of(
                        Target.ratio("≥ 1.0 × raw Lettuce msg/s", "opsPerSec", "lettuce", true, 1.0),
                        Target.ratio("latency p99 ≤ 1.5 × raw Lettuce", "p99Us", "lettuce", false, 1.5),
                        Target.absolute("0 lost", "lost", false, 0)),
                (impl, uris) -> new QueueFlow(queueing(impl, uris.get(0), 1), "bench:queue", 4, QUEUE_WINDOW)));
        all.add(new Scenario("queue-reliable-batch", "Reliable queue: 1 producer + 4 consumers, Coordis batch API ("
                + QUEUE_BATCH + " per push, take and ack) against per-message clients",
                null, null, 1, false, SINGLE, "opsPerSec", true, List.of(
                        Target.ratio("≥ 5 × raw Lettuce per message, with the batch API", "opsPerSec", "lettuce", true, 5.0),
                        Target.absolute("0 lost", "lost", false, 0)),
                (impl, uris) -> new QueueFlow(queueing(impl, uris.get(0), QUEUE_BATCH), "bench:queue", 4, QUEUE_WINDOW)));
        all.add(new Scenario("semaphore-uncontended", "Semaphore acquire/release cycle: 1 thread, " + SEMAPHORE_PERMITS
                + " permits (Coordis's permits are fenced leases; RSemaphore's never expire; RPermitExpirableSemaphore's"
                + " expire after 30 s without renewal)", null, null, 1, false, SEMAPHORES, "opsPerSec", true, List.of(),
                shared(1, SEMAPHORE_PERMITS, LockLoop.Mode.TRY, CoordisShared.Kind.SEMAPHORE)));
        all.add(new Scenario("semaphore-contended-8", "Semaphore: 8 threads, 2 permits (acquire waits, tiny work, release)",
                null, null, 1, false, SEMAPHORES, "opsPerSec", true, List.of(
                        Target.absolute("never more holders than permits", "violations", false, 0)),
                shared(8, 2, LockLoop.Mode.WAIT, CoordisShared.Kind.SEMAPHORE)));
        all.add(new Scenario("read-lock-4", "Read lock: 4 threads hold one name's read lock at once (acquire, tiny work,"
                + " release)", null, null, 1, false, List.of("coordis", "redisson"), "opsPerSec", true, List.of(),
                shared(4, Integer.MAX_VALUE, LockLoop.Mode.TRY, CoordisShared.Kind.READ)));
        all.addAll(rateLimits());
        all.add(startup());
        return List.copyOf(all);
    }

    /**
     * The {@code coordis} command's start-up as whole processes against {@code java -version} (see {@link StartupTimes});
     * one implementation, whose figures carry the ratios.
     */
    private static Scenario startup() {
        return new Scenario("startup", "CLI start-up, whole processes: coordis --version and coordis lock NAME -- true "
                + "against java -version", null, null, 1, false, List.of("coordis"), "lockRatio", false, List.of(
                        Target.absolute("coordis lock NAME -- true ≤ 3 × java -version wall time", "lockRatio", false, 3.0),
                        Target.absolute("coordis --version ≤ 1.5 × java -version wall time", "versionRatio", false, 1.5),
                        Target.absolute("coordis lock peak RSS ≤ 80 MiB", "lockPeakMiB", false, 80)),
                (impl, uris) -> new StartupTimes(uris.get(0)));
    }

    /**
     * Coordis's rate limiter against Redisson's {@code RRateLimiter}: a hot limiter's cost per decision, and the
     * accuracy of the permits granted, also with the askers' clocks an hour ahead and behind.
     */
    private static List<Scenario> rateLimits() {
        int perSecond = ACCURACY_LIMIT.permits() * 10 / ACCURACY_ASKERS;
        Target accurate = Target.absolute("granted within 1 % of rate × time + burst", "errorAbsPct", false, 1.0);
        String asking = "ten times " + ACCURACY_LIMIT + " (" + ACCURACY_ASKERS + " × " + perSecond + " asks/s)";
        return List.of(
                new Scenario("ratelimit-hot", "Rate limiter, hot: " + HOT_THREADS + " threads on one name, limit "
                        + HOT_LIMIT + " (every decision a grant)", null, null, 1, false, LIMITERS, "opsPerSec", true,
                        List.of(Target.absolute("every decision a grant", "denied", false, 0)),
                        (impl, uris) -> new RateHot(limiting(impl, uris.get(0), HOT_LIMIT), "bench:rate:hot",
                                HOT_THREADS)),
                new Scenario("ratelimit-accuracy", "Rate limiter accuracy: " + ACCURACY_ASKERS + " threads asking "
                        + asking + ", granted against rate × time + burst on Redis's clock", null, null, 1, false,
                        LIMITERS, "grantedPct", false, List.of(accurate),
                        (impl, uris) -> RateAccuracy.threads(limiting(impl, uris.get(0), ACCURACY_LIMIT), uris.get(0),
                                ACCURACY_LIMIT, ACCURACY_ASKERS, perSecond)),
                new Scenario(SKEWED_ACCURACY, "Rate limiter accuracy, skewed clocks: " + SKEWS.size()
                        + " JVMs with clocks " + String.join(", ", SKEWS.stream().map(Faketime::spec).toList())
                        + " (faketime) asking " + asking + "; client CPU and alloc are the coordinating JVM's only",
                        null, null, 1, false, LIMITERS, "grantedPct", false, List.of(accurate),
                        (impl, uris) -> RateAccuracy.skewedProcesses(impl, uris.get(0), ACCURACY_LIMIT, SKEWS,
                                ACCURACY_LIMIT.permits() * 10 / SKEWS.size())));
    }

    /** Why scenario {@code s} cannot run on this machine, if it cannot: the skewed one needs {@code faketime}. */
    static Optional<String> unavailable(Scenario s) {
        return s.id().equals(SKEWED_ACCURACY) && Faketime.binary().isEmpty() ? Optional.of(Faketime.MISSING)
                : Optional.empty();
    }

    /** The figure a series is shown by: acquire latency for Redlock growth, throughput for contention. */
    static String seriesMetric(String series) {
        return REDLOCK_GROWTH.equals(series) ? "acquireP50Us" : "opsPerSec";
    }

    static Optional<Scenario> byId(String id) {
        return all().stream().filter(s -> s.id().equals(id)).findFirst();
    }

    /**
     * Coordis and {@code lettuce-scripts} (Coordis's own scripts, nothing around them) in one JVM, interleaved
     * ({@link SameJvmLoop}): {@code threads} threads, each on its own key; the ratio is the client library's cost.
     */
    private static Scenario sameJvm(int threads, List<Target> targets) {
        String id = threads == 1 ? "lock-same-jvm" : "lock-same-jvm-many-keys";
        String title = "Same JVM: Coordis against lettuce-scripts, interleaved in blocks of " + SameJvmLoop.CYCLES_PER_BLOCK
                + " cycles, " + (threads == 1 ? "1 thread, 1 key" : threads + " threads, each on its own key");
        return new Scenario(id, title, null, null, 1, false, List.of(Scenario.COORDIS), "opsPerSec", true, targets,
                (impl, uris) -> new SameJvmLoop(List.of(locking("coordis", uris), locking("lettuce-scripts", uris)), threads));
    }

    private static Scenario contended(int threads, List<String> implementations, List<Target> targets) {
        return new Scenario("lock-contended-" + threads,
                "Contended: " + threads + " threads on 1 key in 1 JVM (acquire, tiny work, release)",
                CONTENDED_GROWTH, threads + " threads", 1, false, implementations, "opsPerSec", true, targets,
                locks(threads, 1, t -> 0, LockLoop.Mode.WAIT));
    }

    private static Scenario redlock(int masters, List<String> implementations, List<Target> targets) {
        return new Scenario("redlock-" + masters, "Redlock, " + masters + " masters, uncontended (1 thread)",
                REDLOCK_GROWTH, masters + " masters", masters, true, implementations, "opsPerSec", true, targets,
                locks(1, 1, t -> 0, LockLoop.Mode.TRY));
    }

    private static Workload.Factory locks(int threads, int keys, IntUnaryOperator keyOfThread, LockLoop.Mode mode) {
        return (impl, uris) -> new LockLoop(locking(impl, uris), threads, "bench:lock:", keys, keyOfThread, mode);
    }

    /**
     * {@code threads} threads on one name of a shared hold ({@code kind}), which admits {@code permits} holders at
     * once (read holds: any number).
     */
    private static Workload.Factory shared(int threads, int permits, LockLoop.Mode mode, CoordisShared.Kind kind) {
        return (impl, uris) -> new LockLoop(sharedLocking(impl, uris.get(0), kind, permits), threads, "bench:shared:", 1,
                t -> 0, mode, permits);
    }

    /** The shared-hold client named {@code impl}: {@code redisson} is Redisson's read lock. */
    static Locking sharedLocking(String impl, String uri, CoordisShared.Kind kind, int permits) {
        return switch (impl) {
            case "coordis" -> CoordisShared.connect(uri, kind, permits);
            case "redisson-semaphore" -> new RedissonShared(uri, RedissonShared.Kind.SEMAPHORE, permits);
            case "redisson-expirable" -> new RedissonShared(uri, RedissonShared.Kind.PERMIT_EXPIRABLE, permits);
            case "redisson" -> new RedissonShared(uri, RedissonShared.Kind.READ, permits);
            default -> throw new IllegalArgumentException("no shared-hold implementation named '" + impl + "'");
        };
    }

    /** The lock client named {@code impl}. */
    static Locking locking(String impl, List<String> uris) {
        return switch (impl) {
            case "coordis" -> new CoordisLocking(uris);
            case "coordis-no-yield" -> new CoordisLocking(uris, LockOptions.defaults().withYieldToPollers(false));
            case "redisson", "redisson-multilock" -> new RedissonLocking(uris, RedissonLocking.Combine.MULTI);
            case "redisson-redlock" -> new RedissonLocking(uris, RedissonLocking.Combine.RED);
            case "lettuce", "lettuce-spin", "lettuce-sequential" -> new LettuceLocking(uris, LettuceLocking.Fanout.SEQUENTIAL);
            case "lettuce-parallel" -> new LettuceLocking(uris, LettuceLocking.Fanout.PARALLEL);
            case "lettuce-scripts" -> new LettuceScriptLocking(uris);
            default -> throw new IllegalArgumentException("no lock implementation named '" + impl + "'");
        };
    }

    /** The reliable-queue client named {@code impl}, used per message. */
    static Queueing queueing(String impl, String uri) {
        return queueing(impl, uri, 1);
    }

    /** The reliable-queue client named {@code impl}; Coordis uses its batch API when {@code batch} &gt; 1. */
    static Queueing queueing(String impl, String uri, int batch) {
        return switch (impl) {
            case "coordis" -> new CoordisQueueing(uri, batch);
            case "redisson" -> new RedissonQueueing(uri);
            case "lettuce" -> new LettuceQueueing(uri);
            default -> throw new IllegalArgumentException("no queue implementation named '" + impl + "'");
        };
    }

    /** The rate-limiter client named {@code impl}, every name limited by {@code limit}. */
    static Limiting limiting(String impl, String uri, RateLimit limit) {
        return switch (impl) {
            case "coordis" -> new CoordisLimiting(uri, limit);
            case "redisson" -> new RedissonLimiting(uri, limit);
            default -> throw new IllegalArgumentException("no rate-limiter implementation named '" + impl + "'");
        };
    }

    /** The pub/sub client named {@code impl}. */
    static Signaling signaling(String impl, String uri) {
        return switch (impl) {
            case "coordis" -> new CoordisSignaling(uri);
            case "redisson" -> new RedissonSignaling(uri);
            case "lettuce" -> new LettuceSignaling(uri);
            default -> throw new IllegalArgumentException("no signal implementation named '" + impl + "'");
        };
    }
}
