package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Telemetry;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The non-blocking acquires ({@link DistributedLock#acquireAsync(Duration)} and the rest) against real Redis: many
 * waiters served once each and alone without a thread each, judged by a {@link FencedResource} per name (with a
 * broken variant it must catch); cancellation racing a grant leaving nothing behind; failures naming the lock.
 */
class AsyncAcquireIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();
    @RegisterExtension
    static final RedisExtension masters = RedisExtension.masters(3);

    /**
     * Ten thousand waiters on four names, started from four threads at once: every future completes once, with a
     * lease held alone (entered and written at the name's fenced resource in a dependent stage, left and released
     * in the next, on another thread), and the JVM's thread count stays flat while they wait.
     */
    /**
     * An empty answer reaches the caller only once the acquire let go of its place in this client's line, so a
     * try right after it, on the same client, asks Redis instead of finding that place still taken.
     */
    @Test
    void aTryRightAfterAnEmptyAnswerFindsTheLineFree() throws Exception {
        String name = "async:line";
        try (Coordis client = TestClients.connect(redis.uri()); Coordis other = TestClients.connect(redis.uri())) {
            DistributedLock lock = client.lock(name);
            for (int round = 0; round < 200; round++) {
                Lease held = other.lock(name).tryAcquire().orElseThrow();
                assertThat(lock.acquireAsync(Duration.ofMillis(5)).get(5, TimeUnit.SECONDS)).isEmpty();
                held.release();
                Optional<Lease> next = lock.tryAcquire();
                assertThat(next).as("round %d: a try right after an empty answer", round).isPresent();
                next.get().release();
            }
        }
    }

    @Test
    void tenThousandAsyncAcquiresAreEachServedOnceAloneWithoutAThreadEach() throws Exception {
        try (Coordis client = TestClients.connect(redis.uri())) {
            Run run = run(10_000, 4, i -> client.lock("async:many:" + (i % 4)));
            assertThat(run.servedOnce()).isTrue();
            run.assertAlone();
            assertThat(run.peakExtraThreads()).as("threads beyond those running before the waits").isLessThan(24);
            for (int n = 0; n < 4; n++) {
                assertThat(client.lock("async:many:" + n).tryAcquire()).as("free at the end").isPresent()
                        .hasValueSatisfying(Lease::release);
            }
        }
    }

    @Test
    void redlockAsyncAcquiresAreEachServedOnceAlone() throws Exception {
        LockOptions options = LockOptions.defaults().withRestartGuard(false);
        try (Coordis client = TestClients.connect(masters.uris())) {
            Run run = run(400, 2, i -> client.lock("async:redlock:" + (i % 2), options));
            assertThat(run.servedOnce()).isTrue();
            run.assertAlone();
        }
    }

    /** The referee catches a "lock" that lets waiters in together: each waiter locks a name of its own. */
    @Test
    void theRefereeCatchesABrokenLockThatLetsWaitersInTogether() throws Exception {
        try (Coordis client = TestClients.connect(redis.uri())) {
            Run run = run(400, 4, i -> new SharedResourceName(client.lock("async:broken:" + i), "async:many:" + (i % 4)));
            assertThat(run.servedOnce()).isTrue();
            long overlaps = run.resources.values().stream().mapToLong(r -> r.report().overlaps()).sum();
            assertThat(overlaps).as("holders inside together, seen by the referee").isPositive();
        }
    }

    /**
     * A thousand times, a waiter is cancelled while the lock is released to it, in either order or at once, by a
     * holder in the same client (a hand-off in the local queue) or in another (the release channel and a try at
     * Redis). A future that completed anyway holds a lease, which the test releases; one that was cancelled leaves
     * nothing: the holder gets the lock again at once each round, and in the end no key, no marker and no
     * subscription remain.
     */
    @Test
    void cancellationRacingAGrantAThousandTimesLeavesNothingBehind() throws Exception {
        LockOptions options = LockOptions.defaults().withTtl(Duration.ofSeconds(5));
        String name = "async:cancel";
        ExecutorService canceller = Executors.newSingleThreadExecutor();
        try (Coordis client = TestClients.connect(redis.uri()); Coordis other = TestClients.connect(redis.uri())) {
            DistributedLock lock = client.lock(name, options);
            int granted = 0;
            int cancelled = 0;
            String previous = "nothing";
            long[] holderFence = new long[1];
            for (int round = 0; round < 1_000; round++) {
                DistributedLock holding = round % 2 == 0 ? lock : other.lock(name, options);
                String last = "round " + round + " after " + previous;
                Lease holder = holding.acquire(Duration.ofSeconds(2))
                        .orElseThrow(() -> new AssertionError("the lock was left held: " + last + ", held by "
                                + lock.holder() + " fence " + holderFence[0]));
                holderFence[0] = holder.fencingToken();
                CompletableFuture<Optional<Lease>> waiter = lock.acquireAsync(Duration.ofSeconds(5));
                int order = ThreadLocalRandom.current().nextInt(3);
                if (order == 0) {
                    waiter.cancel(true);
                    holder.release();
                } else if (order == 1) {
                    holder.release();
                    waiter.cancel(true);
                } else {
                    CompletableFuture<?> cancelling = CompletableFuture.runAsync(() -> waiter.cancel(true), canceller);
                    holder.release();
                    cancelling.get(5, TimeUnit.SECONDS);
                }
                if (waiter.isCancelled()) {
                    cancelled++;
                } else {
                    granted++;
                    waiter.get(5, TimeUnit.SECONDS).orElseThrow().release();
                }
                previous = "order " + order + (round % 2 == 0 ? " (same client)" : " (other client)")
                        + (waiter.isCancelled() ? ", cancelled" : ", granted") + ", holder token " + holder.token();
            }
            assertThat(cancelled).as("cancelled waits (granted: %d)", granted).isPositive();
            // as each round begins: a try of the last round's may still be out, and what it won is let go in the
            // background; waited for within the TTL, so that a lease left held fails it instead of expiring
            String last = "after the last round, " + previous;
            lock.acquire(Duration.ofSeconds(2)).orElseThrow(() -> new AssertionError("the lock was left held: "
                    + last + ", held by " + lock.holder())).release();
            assertLeftNothing(name, lock, other.lock(name, options));
        } finally {
            canceller.shutdownNow();
        }
    }

    /** Waiters in line cancelled before their turn leave the line: the next caller gets the lock at once. */
    @Test
    void cancelledWaitersInLineLeaveTheLine() throws Exception {
        String name = "async:line";
        try (Coordis client = TestClients.connect(redis.uri())) {
            DistributedLock lock = client.lock(name);
            Lease holder = lock.tryAcquire().orElseThrow();
            List<CompletableFuture<Lease>> waiting = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                waiting.add(lock.acquireAsync());
            }
            waiting.forEach(f -> f.cancel(true));
            holder.release();
            assertLeftNothing(name, lock, lock);
            assertThat(waiting).allMatch(CompletableFuture::isCancelled);
        }
    }

    /** Telemetry hears of an async acquire as of a blocking one: acquired, busy, timeout, interrupted (cancelled). */
    @Test
    void telemetryHearsAsyncAcquiresAsBlockingOnes() throws Exception {
        List<Telemetry.Result> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        Telemetry telemetry = new Telemetry() {
            @Override
            public Wait acquiring(String lock) {
                return (result, took) -> told.add(result);
            }
        };
        try (Coordis client = TestClients.builder().url(redis.uri()).telemetry(telemetry).connect();
             Coordis other = TestClients.connect(redis.uri())) {
            DistributedLock lock = client.lock("async:told");
            // each told before the next starts: the future may complete on the callback executor before the telling
            lock.tryAcquireAsync().get(5, TimeUnit.SECONDS).orElseThrow().release();
            await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 1);
            Lease theirs = other.lock("async:told").tryAcquire().orElseThrow();
            assertThat(lock.tryAcquireAsync().get(5, TimeUnit.SECONDS)).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 2);
            assertThat(lock.acquireAsync(Duration.ofMillis(50)).get(5, TimeUnit.SECONDS)).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 3);
            CompletableFuture<Lease> cancelled = lock.acquireAsync();
            cancelled.cancel(true);
            await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 4);
            theirs.release();
            assertThat(told).containsExactly(Telemetry.Result.ACQUIRED, Telemetry.Result.BUSY,
                    Telemetry.Result.TIMEOUT, Telemetry.Result.INTERRUPTED);
        }
    }

    /** Redis not answering, and the client closed: the futures fail with the exception the blocking call throws. */
    @Test
    void failuresCompleteTheFutureExceptionallyNamingTheLock() throws Exception {
        RedisServer server = redis.server();
        try (Coordis client = TestClients.builder().url(redis.uri()).commandTimeout(Duration.ofMillis(300)).connect()) {
            DistributedLock lock = client.lock("async:down");
            lock.tryAcquire().orElseThrow().release(); // connected
            server.pause();
            try {
                assertFailsNaming(lock.tryAcquireAsync(), NodeUnavailableException.class, "lock 'async:down'");
                assertFailsNaming(lock.acquireAsync(Duration.ofSeconds(2)), NodeUnavailableException.class,
                        "lock 'async:down'");
                assertThatThrownBy(lock::tryAcquire).isInstanceOf(NodeUnavailableException.class)
                        .hasMessageContaining("lock 'async:down'");
            } finally {
                server.resume();
            }
        }

        Coordis closing = TestClients.connect(redis.uri());
        Coordis other = TestClients.connect(redis.uri());
        try {
            DistributedLock lock = closing.lock("async:closed");
            Lease theirs = other.lock("async:closed").tryAcquire().orElseThrow();
            CompletableFuture<Lease> waiting = lock.acquireAsync();
            awaitSubscribers(Prefixed.derived("async:closed", "released"), 1);
            closing.close();
            assertFailsNaming(waiting, CoordisException.class, "lock 'async:closed'");
            assertFailsNaming(lock.acquireAsync(Duration.ofSeconds(1)), CoordisException.class, "lock 'async:closed'");
            theirs.release();
        } finally {
            closing.close();
            other.close();
        }
    }

    private static void assertFailsNaming(CompletableFuture<?> future, Class<? extends Throwable> type, String name) {
        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(type).hasMessageContaining(name);
    }

    /**
     * Nothing left of a name's waits: no subscription on its release channel, no lock key, the waiter marker gone
     * within the TTL, and both {@code mine} and {@code theirs} (another client, or the same) get it at once.
     */
    private static void assertLeftNothing(String name, DistributedLock mine, DistributedLock theirs) {
        awaitSubscribers(Prefixed.derived(name, "released"), 0);
        await().atMost(Duration.ofSeconds(2)).until(() -> redis.server().command("GET", Prefixed.key(name)) == null);
        await().atMost(Duration.ofSeconds(8)).until(() ->
                Long.valueOf(0).equals(redis.server().command("EXISTS", Prefixed.derived(name, "released"))));
        mine.tryAcquire().orElseThrow(() -> new AssertionError("the local queue or the key was left taken")).release();
        theirs.tryAcquire().orElseThrow(() -> new AssertionError("the key was left taken")).release();
    }

    private static void awaitSubscribers(String channel, long expected) {
        await().atMost(Duration.ofSeconds(5)).until(() ->
                (Long) ((List<?>) redis.server().command("PUBSUB", "NUMSUB", channel)).get(1) == expected);
    }

    /**
     * {@code calls} async acquires, each of {@code lockOf.apply(i)}, started from {@code threads} threads at once;
     * each lease is refereed at the fenced resource of its {@link #resourceOf resource name} and released, both in a
     * dependent stage.
     */
    private static Run run(int calls, int threads, IntFunction<DistributedLock> lockOf) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int before = mx.getThreadCount();
        ExecutorService releasers = Executors.newFixedThreadPool(2);
        Run run = new Run(calls, releasers);
        List<DistributedLock> locks = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            locks.add(lockOf.apply(i));
        }
        ExecutorService starters = Executors.newFixedThreadPool(threads);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try {
            List<java.util.concurrent.Future<List<CompletableFuture<Void>>>> started = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t;
                started.add(starters.submit(() -> {
                    List<CompletableFuture<Void>> mine = new ArrayList<>();
                    for (int i = first; i < calls; i += threads) {
                        int call = i;
                        DistributedLock lock = locks.get(i);
                        mine.add(lock.acquireAsync(Duration.ofSeconds(50)).thenCompose(lease -> run.hold(call, lock, lease)));
                    }
                    return mine;
                }));
            }
            for (var s : started) {
                done.addAll(s.get(30, TimeUnit.SECONDS));
            }
        } finally {
            starters.shutdown();
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
        while (!all.isDone()) {
            run.peak = Math.max(run.peak, mx.getThreadCount() - before - threads - 2);
            try {
                all.get(20, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException stillWaiting) {
                // sample again
            }
            assertThat(run.served.get() + run.failures.size()).as("progress").isLessThanOrEqualTo(calls);
        }
        all.get(60, TimeUnit.SECONDS);
        releasers.shutdown();
        assertThat(run.failures).isEmpty();
        return run;
    }

    /** The fenced resource a lock's holders are judged at: the lock's name, or the one a broken variant shares. */
    private static String resourceOf(DistributedLock lock) {
        return lock instanceof SharedResourceName s ? s.resource : lock.name();
    }

    private static final class Run {
        final AtomicIntegerArray completions;
        final AtomicInteger served = new AtomicInteger();
        final Map<String, FencedResource> resources = new ConcurrentHashMap<>();
        final List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        final ExecutorService releasers;
        volatile int peak;

        Run(int calls, ExecutorService releasers) {
            this.completions = new AtomicIntegerArray(calls);
            this.releasers = releasers;
        }

        /** Enters and writes now; leaves and releases on a releaser thread (so that holds last). */
        CompletableFuture<Void> hold(int call, DistributedLock lock, Optional<Lease> acquired) {
            try {
                completions.incrementAndGet(call);
                Lease lease = acquired.orElseThrow(() -> new AssertionError("call " + call + " timed out"));
                FencedResource resource = resources.computeIfAbsent(resourceOf(lock), n -> FencedResource.start());
                String client = "call-" + call;
                resource.enter(client, lease.fencingToken());
                resource.write(client, lease.fencingToken());
                return CompletableFuture.runAsync(() -> {
                    resource.exit(client, lease.fencingToken());
                    lease.release();
                    served.incrementAndGet();
                }, releasers).exceptionally(t -> {
                    failures.add(t);
                    return null;
                });
            } catch (Throwable t) {
                failures.add(t);
                return CompletableFuture.completedFuture(null);
            }
        }

        boolean servedOnce() {
            for (int i = 0; i < completions.length(); i++) {
                assertThat(completions.get(i)).as("completions of call %d", i).isEqualTo(1);
            }
            assertThat(served).hasValue(completions.length());
            return true;
        }

        void assertAlone() {
            resources.forEach((name, resource) -> {
                FencedResource.Report r = resource.report();
                assertThat(r.overlaps()).as("%s: overlaps, %s", name, r.notes()).isZero();
                assertThat(r.fenceRegressions()).as("%s: fence regressions, %s", name, r.notes()).isZero();
                assertThat(r.violations()).as("%s: violations", name).isZero();
                assertThat(r.staleRejections()).as("%s: stale writes", name).isZero();
                resource.close();
            });
        }

        int peakExtraThreads() {
            return peak;
        }
    }

    /** A lock judged at another name's resource: the deliberately broken variant, which excludes nobody there. */
    private record SharedResourceName(DistributedLock lock, String resource) implements DistributedLock {
        @Override
        public String name() {
            return lock.name();
        }

        @Override
        public String key() {
            return lock.key();
        }

        @Override
        public Optional<Lease> tryAcquire() {
            return lock.tryAcquire();
        }

        @Override
        public Optional<Lease> acquire(Duration wait) throws InterruptedException {
            return lock.acquire(wait);
        }

        @Override
        public Lease acquire() throws InterruptedException {
            return lock.acquire();
        }

        @Override
        public CompletableFuture<Optional<Lease>> tryAcquireAsync() {
            return lock.tryAcquireAsync();
        }

        @Override
        public CompletableFuture<Optional<Lease>> acquireAsync(Duration wait) {
            return lock.acquireAsync(wait);
        }

        @Override
        public CompletableFuture<Lease> acquireAsync() {
            return lock.acquireAsync();
        }

        @Override
        public Optional<LockHolder> holder() {
            return lock.holder();
        }

        @Override
        public Optional<ForcedUnlock> forceUnlock(String reason) {
            return lock.forceUnlock(reason);
        }

        @Override
        public Optional<ForcedUnlock> forceUnlock(LockHolder holder, String reason) {
            return lock.forceUnlock(holder, reason);
        }
    }
}
