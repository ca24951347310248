package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class SingleNodeLockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis a;
    private Coordis b;

    @BeforeEach
    void connect() {
        a = TestClients.connect(redis.uri());
        b = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private RedisServer server() {
        return redis.server();
    }

    @Test
    void lockKeyIsTheNameAndItsValueAFreshRandomToken() {
        Lease first = a.lock("orders:42").tryAcquire().orElseThrow();
        assertThat(server().command("GET", Prefixed.key("orders:42"))).isEqualTo(first.token());
        assertThat(first.token()).matches("[0-9a-f]{40}");
        long pttl = (Long) server().command("PTTL", Prefixed.key("orders:42"));
        assertThat(pttl).isBetween(25_000L, 30_000L);
        assertThat(first.release()).isTrue();
        assertThat(server().command("EXISTS", Prefixed.key("orders:42"))).isEqualTo(0L);

        Lease second = a.lock("orders:42").tryAcquire().orElseThrow();
        assertThat(second.token()).isNotEqualTo(first.token());
        second.close();
    }

    @Test
    void passwordForAServerWithoutOneIsAccessDenied() {
        assertThatThrownBy(() -> TestClients.connect("redis://:not-needed-pw@" + server().address()))
                .isInstanceOf(io.coordis.AccessDeniedException.class)
                .hasMessageContaining(server().address())
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("not-needed-pw"));
    }

    @Test
    void databaseNumberInTheUrlIsUsed() {
        try (Coordis db3 = TestClients.connect(redis.uri() + "/3");
             Lease lease = db3.lock("in-db-3").tryAcquire().orElseThrow();
             var raw = io.coordis.testkit.RespClient.connect(server())) {
            assertThat(raw.command("EXISTS", Prefixed.key("in-db-3"))).isEqualTo(0L);
            raw.command("SELECT", "3");
            assertThat(raw.command("GET", Prefixed.key("in-db-3"))).isEqualTo(lease.token());
        }
    }

    @Test
    void explicitPrefixIsTheOnlyThingAddedToTheName() {
        DistributedLock lock = a.lock("job", LockOptions.defaults().withKeyPrefix("app:"));
        assertThat(lock.key()).isEqualTo(Prefixed.key("app:job"));
        try (Lease lease = lock.tryAcquire().orElseThrow()) {
            assertThat(server().command("GET", Prefixed.key("app:job"))).isEqualTo(lease.token());
            assertThat(server().command("EXISTS", Prefixed.key("job"))).isEqualTo(0L);
        }
    }

    @Test
    void secondClientIsExcludedUntilRelease() throws Exception {
        Lease held = a.lock("r").tryAcquire().orElseThrow();
        DistributedLock other = b.lock("r");
        assertThat(other.tryAcquire()).isEmpty();
        assertThat(other.lastVotes()).singleElement().satisfies(v -> {
            assertThat(v.vote()).isEqualTo(NodeVote.Vote.HELD_BY_OTHER);
            assertThat(v.node()).isEqualTo(server().address());
        });
        assertThat(b.lock("r").acquire(Duration.ofMillis(200))).isEmpty();
        held.release();
        try (Lease next = b.lock("r").tryAcquire().orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void fencingNumbersStrictlyIncreaseAcrossClients() {
        long last = 0;
        for (int i = 0; i < 20; i++) {
            Coordis c = i % 2 == 0 ? a : b;
            try (Lease lease = c.lock("fenced").tryAcquire().orElseThrow()) {
                assertThat(lease.fencingToken()).isGreaterThan(last);
                last = lease.fencingToken();
            }
        }
        assertThat(server().command("GET", Prefixed.derived("fenced", "fence"))).isEqualTo(Long.toString(last));
    }

    @Test
    void waiterWakesOnReleaseWithoutWaitingForTheTtl() throws Exception {
        Lease held = a.lock("wake", LockOptions.defaults().withTtl(Duration.ofSeconds(30))).tryAcquire().orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Optional<Lease>> waiter = pool.submit(() -> b.lock("wake").acquire(Duration.ofSeconds(20)));
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(Prefixed.derived("wake", "released")) > 0);
            long released = System.nanoTime();
            held.release();
            Lease next = waiter.get(5, TimeUnit.SECONDS).orElseThrow();
            // far below the 30 s TTL: the release notification woke the waiter
            assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(3));
            next.close();
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(Prefixed.derived("wake", "released")) == 0);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void uncontendedCycleCostsTwoScriptCallsAndPublishesNothing() {
        DistributedLock lock = a.lock("cheap");
        lock.tryAcquire().orElseThrow().close(); // scripts loaded
        server().command("CONFIG", "RESETSTAT");
        for (int i = 0; i < 10; i++) {
            lock.tryAcquire().orElseThrow().close();
        }
        java.util.Map<String, Long> calls = commandCalls();
        calls.keySet().removeIf(k -> k.startsWith("config")); // RESETSTAT itself ("config|resetstat" on 7.0)
        // per cycle: EVALSHA acquire (SET, INCR, HSET) + EVALSHA release (GET, DEL lock and waiter marker)
        assertThat(calls).containsEntry("evalsha", 20L).containsEntry("set", 10L).containsEntry("incr", 10L)
                .containsEntry("hset", 10L).containsEntry("get", 10L).containsEntry("del", 10L)
                .doesNotContainKey("publish");
        assertThat(calls.values().stream().mapToLong(Long::longValue).sum()).as("%s", calls).isEqualTo(70L);
    }

    @Test
    void releasePublishesWhenABusyAnswerSaidSomebodyMayWait() {
        Lease held = a.lock("marked").tryAcquire().orElseThrow();
        assertThat(server().command("EXISTS", Prefixed.derived("marked", "released"))).isEqualTo(0L);
        assertThat(b.lock("marked").tryAcquire()).isEmpty();
        long markerTtl = (Long) server().command("PTTL", Prefixed.derived("marked", "released"));
        assertThat(markerTtl).as("past the holder's ttl")
                .isGreaterThan((Long) server().command("PTTL", Prefixed.key("marked")));
        server().command("CONFIG", "RESETSTAT");
        assertThat(held.release()).isTrue();
        assertThat(commandCalls()).containsEntry("publish", 1L);
        assertThat(server().command("EXISTS", Prefixed.key("marked"), Prefixed.derived("marked", "released")))
                .isEqualTo(0L);
        // the next uncontended cycle is silent again
        server().command("CONFIG", "RESETSTAT");
        a.lock("marked").tryAcquire().orElseThrow().close();
        assertThat(commandCalls()).doesNotContainKey("publish");
    }

    /** Also without yielding to pollers: another Coordis client marks that it waits and gets its turns all the same. */
    @ParameterizedTest(name = "yieldToPollers={0}")
    @ValueSource(booleans = {true, false})
    void otherClientIsNotStarvedWhileEightThreadsOfOneClientHandTheLockOn(boolean yieldToPollers) throws Exception {
        String name = "busy-" + yieldToPollers;
        DistributedLock local = a.lock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(10))
                .withYieldToPollers(yieldToPollers));
        java.util.concurrent.ConcurrentLinkedQueue<Long> fences = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger handedOver = new AtomicInteger();
        AtomicInteger localCycles = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> threads = new ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                threads.add(pool.submit(() -> {
                    while (!stop.get()) {
                        try (Lease lease = local.acquire(Duration.ofSeconds(30)).orElseThrow()) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            fences.add(lease.fencingToken());
                            if (lease.votes().get(0).detail().equals("handed over")) {
                                handedOver.incrementAndGet();
                            }
                            localCycles.incrementAndGet();
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> localCycles.get() > 200);
            DistributedLock remote = b.lock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(10)));
            for (int i = 0; i < 5; i++) {
                long start = System.nanoTime();
                Optional<Lease> got = remote.acquire(Duration.ofSeconds(10));
                assertThat(got).as("another client waiting for the lock got it within 10 s (try %d)", i).isPresent();
                try (Lease lease = got.get()) {
                    if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    fences.add(lease.fencingToken());
                    inside.decrementAndGet();
                }
                System.out.printf("other client waited %d ms%n", (System.nanoTime() - start) / 1_000_000);
            }
        } finally {
            stop.set(true);
            for (Future<?> f : threads) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        assertThat(overlaps.get()).isZero();
        assertThat(handedOver.get()).as("releases handed the lock to the next local thread").isGreaterThan(0);
        List<Long> order = new ArrayList<>(fences);
        for (int i = 1; i < order.size(); i++) {
            assertThat(order.get(i)).as("fence %d after %d", order.get(i), order.get(i - 1)).isGreaterThan(order.get(i - 1));
        }
        assertThat(server().command("EXISTS", Prefixed.key(name))).as("nothing left held").isEqualTo(0L);
    }

    /**
     * By default a chain of hand-offs among eight threads of one client goes back to Redis every
     * {@link SingleNodeLock#MAX_CHAIN_NANOS} (for clients that poll without marking); without yielding to pollers
     * it stays local for as long as nobody marks that they wait.
     */
    @ParameterizedTest(name = "yieldToPollers={0}")
    @ValueSource(booleans = {true, false})
    void aChainOfHandOffsGoesBackToRedisEvery100MsOnlyWhenYieldingToPollers(boolean yieldToPollers) throws Exception {
        DistributedLock local = a.lock("chain-" + yieldToPollers, LockOptions.defaults().withTtl(Duration.ofSeconds(10))
                .withYieldToPollers(yieldToPollers));
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean counting = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger cycles = new AtomicInteger();
        AtomicInteger handedOver = new AtomicInteger();
        AtomicInteger atRedis = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> threads = new ArrayList<>();
        long window = 0;
        try {
            for (int t = 0; t < 8; t++) {
                threads.add(pool.submit(() -> {
                    while (!stop.get()) {
                        try (Lease lease = local.acquire(Duration.ofSeconds(30)).orElseThrow()) {
                            cycles.incrementAndGet();
                            if (counting.get()) {
                                (lease.votes().get(0).detail().equals("handed over") ? handedOver : atRedis)
                                        .incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> cycles.get() > 200);
            long start = System.nanoTime();
            counting.set(true);
            Thread.sleep(1000);
            counting.set(false);
            window = (System.nanoTime() - start) / 1_000_000;
        } finally {
            stop.set(true);
            for (Future<?> f : threads) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        System.out.printf("yieldToPollers=%s: in %d ms, %d leases handed over, %d acquired at Redis%n", yieldToPollers,
                window, handedOver.get(), atRedis.get());
        assertThat(handedOver.get()).as("leases handed over in %d ms", window).isGreaterThan(50);
        if (yieldToPollers) {
            assertThat(atRedis.get()).as("chains that went back to Redis in %d ms (one per 100 ms expected)", window)
                    .isGreaterThanOrEqualTo(5);
        } else {
            assertThat(atRedis.get()).as("leases acquired at Redis in %d ms: the chain should have stayed local", window)
                    .isLessThanOrEqualTo(1);
        }
    }

    /**
     * A foreign client that only polls with {@code SET NX PX} leaves no mark that it waits; the local chain of
     * hand-offs still goes back to Redis every {@link SingleNodeLock#MAX_CHAIN_NANOS} and pauses, so the poller
     * gets the lock, repeatedly, while eight threads of one client keep handing it on. Mutual exclusion holds
     * throughout (the poller's hold is checked against the local holders).
     */
    @Test
    void aForeignPollerLeavingNoMarkGetsTheLockWhileEightThreadsHandItOn() throws Exception {
        DistributedLock local = a.lock("polled", LockOptions.defaults().withTtl(Duration.ofSeconds(10)));
        String key = Prefixed.key("polled");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger localCycles = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> threads = new ArrayList<>();
        List<Long> waits = new ArrayList<>();
        try (var poller = io.coordis.testkit.RespClient.connect(server())) {
            for (int t = 0; t < 8; t++) {
                threads.add(pool.submit(() -> cycle(local, stop, inside, overlaps, localCycles)));
            }
            List<Integer> polls = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                // the local threads are busy handing the lock on again (after the poller's release they wake by
                // the poller's TTL, as after any release that does not notify)
                int from = localCycles.get();
                await().atMost(Duration.ofSeconds(20)).until(() -> localCycles.get() > from + 200);
                long start = System.nanoTime();
                long deadline = start + TimeUnit.SECONDS.toNanos(10);
                int tries = 1;
                while (!"OK".equals(poller.command("SET", key, "foreign-" + i, "NX", "PX", "1000"))) {
                    assertThat(System.nanoTime()).as("the poller got the lock within 10 s (try %d)", i).isLessThan(deadline);
                    Thread.sleep(20);
                    tries++;
                }
                polls.add(tries);
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                int cyclesBefore = localCycles.get();
                Thread.sleep(50);
                assertThat(localCycles.get()).as("no local holder while the poller holds it").isEqualTo(cyclesBefore);
                inside.decrementAndGet();
                assertThat(poller.command("EVAL", "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
                        "1", key, "foreign-" + i)).isEqualTo(1L);
                waits.add((System.nanoTime() - start) / 1_000_000);
            }
            System.out.println("foreign poller's SET NX tries per acquisition: " + polls);
            assertThat(polls).as("the lock was busy when the poller started (proof the chain was running)")
                    .anyMatch(n -> n > 1);
        } finally {
            stop.set(true);
            for (Future<?> f : threads) {
                f.get(30, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        System.out.println("foreign poller waited (ms, including a 50 ms hold): " + waits);
        assertThat(overlaps.get()).isZero();
    }

    /**
     * Closing a client ends its callers' waits for a busy lock at once with an error naming the closed
     * connection, instead of leaving their threads parked until the holder's TTL or their own deadline; the
     * callers queued locally behind the first one end the same way.
     */
    @Test
    void closingTheClientEndsItsWaitsForABusyLockAtOnce() throws Exception {
        Lease held = b.lock("closing").tryAcquire().orElseThrow(); // 30 s TTL
        Coordis closing = TestClients.connect(redis.uri());
        DistributedLock lock = closing.lock("closing");
        List<java.util.concurrent.CompletableFuture<Throwable>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waits.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    lock.acquire(Duration.ofSeconds(20));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            }, Executors.newSingleThreadExecutor()));
        }
        await().atMost(Duration.ofSeconds(5)).until(() ->
                (Long) ((List<?>) server().command("PUBSUB", "NUMSUB", Prefixed.derived("closing", "released")))
                        .get(1) > 0);
        Thread.sleep(100);
        long start = System.nanoTime();
        closing.close();
        for (var wait : waits) {
            Throwable t = wait.get(5, TimeUnit.SECONDS);
            assertThat(t).isInstanceOf(io.coordis.CoordisException.class).hasMessageContaining("closed");
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("all waits ended (ms)").isLessThan(3000);
        assertThat(held.isHeld()).isTrue();
        held.release();
    }

    /** Takes and releases {@code lock} until {@code stop}, counting cycles and overlaps with other holders. */
    private static Void cycle(DistributedLock lock, java.util.concurrent.atomic.AtomicBoolean stop, AtomicInteger inside,
                              AtomicInteger overlaps, AtomicInteger cycles) throws InterruptedException {
        while (!stop.get()) {
            try (Lease lease = lock.acquire(Duration.ofSeconds(30)).orElseThrow()) {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                cycles.incrementAndGet();
                inside.decrementAndGet();
            }
        }
        return null;
    }

    /** Calls per command since the last CONFIG RESETSTAT, by lower-case command name. */
    private java.util.Map<String, Long> commandCalls() {
        java.util.Map<String, Long> calls = new java.util.TreeMap<>();
        for (String line : ((String) server().command("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String cmd = line.substring("cmdstat_".length(), line.indexOf(':'));
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("calls=(\\d+)").matcher(line);
                if (m.find() && !cmd.equals("info") && !cmd.equals("auth")) {
                    calls.put(cmd, Long.parseLong(m.group(1)));
                }
            }
        }
        return calls;
    }

    private long subscribers(String channel) {
        List<?> reply = (List<?>) server().command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    @Test
    void foreignLockExcludesUsAndWaiterWakesWhenItsTtlRunsOut() throws Exception {
        // another language's client: SET NX PX with its own value, released silently by expiry
        assertThat(server().command("SET", Prefixed.key("shared"), "their-value", "NX", "PX", "700")).isEqualTo("OK");
        assertThat(a.lock("shared").tryAcquire()).isEmpty();
        Optional<LockHolder> holder = a.lock("shared").holder();
        assertThat(holder).isPresent();
        assertThat(holder.get().isCoordis()).isFalse();
        assertThat(holder.get().token()).isEqualTo("their-value");
        long start = System.nanoTime();
        try (Lease lease = a.lock("shared").acquire(Duration.ofSeconds(10)).orElseThrow()) {
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
            assertThat(server().command("GET", Prefixed.key("shared"))).isEqualTo(lease.token());
        }
    }

    @Test
    void ourLockExcludesForeignClientsAndOurReleaseNeverDeletesTheirValue() {
        Lease ours = a.lock("interop", LockOptions.defaults().withTtl(Duration.ofMillis(300)).withAutoRenew(false))
                .tryAcquire().orElseThrow();
        assertThat(server().command("SET", Prefixed.key("interop"), "theirs", "NX", "PX", "10000")).isNull();
        await().atMost(Duration.ofSeconds(3)).until(() ->
                "OK".equals(server().command("SET", Prefixed.key("interop"), "theirs", "NX", "PX", "10000")));
        assertThat(ours.release()).isFalse();
        assertThat(server().command("GET", Prefixed.key("interop"))).isEqualTo("theirs");
        // the standard compare-and-delete of other clients works on our keys too
        Lease again;
        server().command("DEL", Prefixed.key("interop"));
        again = a.lock("interop").tryAcquire().orElseThrow();
        Object deleted = server().command("EVAL",
                "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
                "1", Prefixed.key("interop"), again.token());
        assertThat(deleted).isEqualTo(1L);
        assertThat(again.release()).isFalse();
    }

    @Test
    void holderShowsWhoHoldsItAndTheFencingNumber() {
        DistributedLock lock = a.lock("visible", LockOptions.defaults().withHolderId("alice@web1:42"));
        try (Lease lease = lock.tryAcquire().orElseThrow()) {
            LockHolder holder = b.lock("visible").holder().orElseThrow();
            assertThat(holder.holderId()).contains("alice@web1:42");
            assertThat(holder.fencingToken()).hasValue(lease.fencingToken());
            assertThat(holder.token()).isEqualTo(lease.token());
            assertThat(holder.ttl()).get().satisfies(t -> assertThat(t).isPositive());
            assertThat(holder.describe()).contains("alice@web1:42").contains("token " + lease.fencingToken());
        }
        assertThat(b.lock("visible").holder()).isEmpty();
    }

    @Test
    void watchdogKeepsTheLockPastItsTtlAndStopsAfterRelease() throws Exception {
        DistributedLock lock = a.lock("renewed", LockOptions.defaults().withTtl(Duration.ofMillis(300)));
        Lease lease = lock.tryAcquire().orElseThrow();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1200);
        while (System.nanoTime() < until) {
            assertThat(b.lock("renewed").tryAcquire()).isEmpty();
            assertThat(lease.isHeld()).isTrue();
            Thread.sleep(50);
        }
        lease.close();
        assertThat(b.lock("renewed").tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void withoutRenewalTheLeaseEndsAtItsValidity() throws Exception {
        Lease lease = a.lock("short", LockOptions.defaults().withTtl(Duration.ofMillis(300)).withAutoRenew(false))
                .tryAcquire().orElseThrow();
        assertThat(lease.remainingValidity()).isLessThanOrEqualTo(Duration.ofMillis(300 - 5));
        lease.lost().toCompletableFuture().get(2, TimeUnit.SECONDS);
        assertThat(lease.isHeld()).isFalse();
        assertThat(b.lock("short").acquire(Duration.ofSeconds(2))).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void deletedKeyIsNoticedByTheWatchdogAndReportedAsLost() throws Exception {
        Lease lease = a.lock("stolen", LockOptions.defaults().withTtl(Duration.ofMillis(600))).tryAcquire().orElseThrow();
        server().command("DEL", Prefixed.key("stolen"));
        assertThat(lease.lost().toCompletableFuture().get(2, TimeUnit.SECONDS)).isSameAs(lease);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.release()).isFalse();
    }

    @Test
    void threadsOfOneClientQueueLocallyAndAllGetTheirTurn() throws Exception {
        DistributedLock lock = a.lock("local");
        int threads = 6;
        int rounds = 15;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int[] turns = new int[threads];
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    try (Lease lease = lock.acquire(Duration.ofSeconds(30)).orElseThrow()) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        turns[id]++;
                        inside.decrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : futures) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(overlaps).hasValue(0);
        assertThat(turns).containsOnly(rounds);
        // local queueing: while a local holder exists, no other thread of this client reaches Redis
        assertThat(subscribers(Prefixed.derived("local", "released"))).isZero();
    }

    @Test
    void interruptedWaitLeavesNothingBehind() throws Exception {
        Lease held = a.lock("intr").tryAcquire().orElseThrow();
        Thread[] waiter = new Thread[1];
        java.util.concurrent.atomic.AtomicReference<Throwable> outcome = new java.util.concurrent.atomic.AtomicReference<>();
        waiter[0] = new Thread(() -> {
            try {
                b.lock("intr").acquire(Duration.ofSeconds(30));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        waiter[0].start();
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(Prefixed.derived("intr", "released")) > 0);
        waiter[0].interrupt();
        waiter[0].join(5000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(Prefixed.derived("intr", "released")) == 0);
        assertThat(server().command("GET", Prefixed.key("intr"))).isEqualTo(held.token());
        held.close();
        assertThat(b.lock("intr").tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void timedOutWaitLeavesNothingBehind() throws Exception {
        Lease held = a.lock("timeout").tryAcquire().orElseThrow();
        assertThat(b.lock("timeout").acquire(Duration.ofMillis(300))).isEmpty();
        // UNSUBSCRIBE is sent when the wait ends; it reaches Redis shortly after
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(Prefixed.derived("timeout", "released")) == 0);
        assertThat(server().command("GET", Prefixed.key("timeout"))).isEqualTo(held.token());
        held.close();
    }

    @Test
    void javaUtilConcurrentLockIsThreadOwnedAndReentrant() throws Exception {
        java.util.concurrent.locks.Lock lock = a.lock("juc").asLock();
        lock.lock();
        lock.lock();
        assertThat(b.lock("juc").tryAcquire()).isEmpty();
        Thread other = new Thread(() -> assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class));
        other.start();
        other.join();
        lock.unlock();
        assertThat(b.lock("juc").tryAcquire()).isEmpty();
        lock.unlock();
        assertThat(b.lock("juc").tryAcquire()).isPresent().get().satisfies(Lease::close);
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void runLockedRunsTheWorkWhileHoldingAndReleasesAfterwards() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        boolean done = a.lock("scoped").runLocked(Duration.ofSeconds(1), () -> {
            assertThat(b.lock("scoped").tryAcquire()).isEmpty();
            ran.incrementAndGet();
        });
        assertThat(done).isTrue();
        assertThat(ran).hasValue(1);
        assertThat(server().command("EXISTS", Prefixed.key("scoped"))).isEqualTo(0L);
    }

    @Test
    void wrongTypeKeyIsATypedErrorNotBusy() {
        server().command("RPUSH", Prefixed.key("listy"), "x");
        assertThatThrownBy(() -> a.lock("listy").tryAcquire())
                .isInstanceOfSatisfying(WrongTypeException.class, e -> {
                    assertThat(e.key()).isEqualTo(Prefixed.key("listy"));
                    assertThat(e.actualType()).isEqualTo("list");
                    assertThat(e.node()).contains(server().address());
                })
                .hasMessageContaining("'" + Prefixed.key("listy") + "'").hasMessageContaining("list");
        assertThatThrownBy(() -> a.lock("listy").acquire(Duration.ofSeconds(5))).isInstanceOf(WrongTypeException.class);
        assertThat(server().command("LLEN", Prefixed.key("listy"))).isEqualTo(1L);
    }

    @Test
    void brokenCounterOrDetailsKeysFailTheAcquireAndLeaveNothingLocked() {
        server().command("SET", Prefixed.derived("counted", "fence"), "not-a-number");
        assertThatThrownBy(() -> a.lock("counted").tryAcquire()).isInstanceOf(io.coordis.CoordisException.class)
                .hasMessageContaining("not an integer");
        assertThat(server().command("EXISTS", Prefixed.key("counted"))).isEqualTo(0L);

        server().command("RPUSH", Prefixed.derived("detailed", "holder"), "x");
        assertThatThrownBy(() -> a.lock("detailed").tryAcquire()).isInstanceOf(WrongTypeException.class);
        assertThat(server().command("EXISTS", Prefixed.key("detailed"))).isEqualTo(0L);
    }

    @Test
    void badNamesAndTtlsAreRejectedWithClearMessages() {
        assertThatThrownBy(() -> a.lock(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("lock name");
        assertThatThrownBy(() -> a.lock("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> a.lock("  \t")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
        assertThatThrownBy(() -> LockOptions.defaults().withTtl(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lock ttl must be at least 100ms, was 0ms");
        assertThatThrownBy(() -> LockOptions.defaults().withTtl(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockOptions.defaults().withTtl(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.lock("x").acquire(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wait must not be negative");
    }

    @Test
    void scriptFlushBetweenCallsIsTransparent() {
        Lease lease = a.lock("flushed").tryAcquire().orElseThrow();
        server().command("SCRIPT", "FLUSH");
        assertThat(lease.extend(Duration.ofSeconds(5))).isTrue();
        server().command("SCRIPT", "FLUSH");
        assertThat(lease.release()).isTrue();
        server().command("SCRIPT", "FLUSH");
        assertThat(a.lock("flushed").tryAcquire()).isPresent().get().satisfies(Lease::close);
    }
}
