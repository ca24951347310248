package io.coordis;

import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A wait rides out Redis being unavailable for a while: a restart, Redlock masters too fresh for the restart guard,
 * a majority of masters down and back. Within its budget each call tries again and succeeds once Redis is back; a
 * budget spent while Redis is still away ends with the last failure; a permanent failure still ends it at once.
 */
class OutageWaitIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Duration DOWN = Duration.ofMillis(1500);

    /** Every kind of wait (a plain pop too), started while Redis is down; Redis comes back 1.5 s later with its data (AOF). */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void everyWaitRidesOutARedisRestart() throws Exception {
        ExecutorService callers = Executors.newCachedThreadPool();
        try (RedisServer server = RedisServer.builder().appendOnly(true).start();
             Coordis coordis = TestClients.connect(server.uri());
             Coordis producer = TestClients.connect(server.uri())) {
            Consumer consumer = coordis.reliableQueue("outage:queue").consumer();
            Consumer asyncConsumer = coordis.reliableQueue("outage:async-queue").consumer();
            server.kill();
            List<Future<?>> waits = new ArrayList<>();
            waits.add(callers.submit(() -> coordis.lock("outage:lock").acquire(WAIT).orElseThrow()));
            waits.add(callers.submit(() -> coordis.readWriteLock("outage:rw").writeLock().acquire(WAIT).orElseThrow()));
            waits.add(callers.submit(() -> coordis.semaphore("outage:sem", 2).acquire(WAIT).orElseThrow()));
            waits.add(callers.submit(() -> coordis.election("outage:election").campaign(WAIT).orElseThrow()));
            waits.add(coordis.lock("outage:async").acquireAsync(WAIT).thenApply(Optional::orElseThrow));
            waits.add(callers.submit(() -> coordis.lock("outage:fair", LockOptions.defaults().withFair(true))
                    .acquire(WAIT).orElseThrow()));
            RateLimiter limiter = coordis.rateLimiter("outage:rate", RateLimit.parse("1/1h"));
            Future<Boolean> rated = callers.submit(() -> limiter.acquire(WAIT));
            CompletableFuture<Boolean> ratedAsync = coordis.rateLimiter("outage:rate-async", RateLimit.parse("1/1h"))
                    .acquireAsync(1, WAIT);
            Future<Delivery> taken = callers.submit(() -> consumer.take(WAIT).orElseThrow());
            CompletableFuture<Optional<Delivery>> takenAsync = asyncConsumer.takeAsync(WAIT);
            Future<byte[]> popped = callers.submit(() -> coordis.queue("outage:plain").pop(WAIT).orElseThrow());
            Future<String> signalled = callers.submit(() -> coordis.signals().await("outage:signal", WAIT)
                    .orElseThrow().data());
            long down = System.nanoTime();
            server.restart(DOWN);
            long back = System.nanoTime();
            // the producer is a client like any other: its connection may need a moment to come back
            untilSent(() -> producer.reliableQueue("outage:queue").push("after the restart"));
            untilSent(() -> producer.queue("outage:plain").push("plain, after the restart"));
            untilSent(() -> producer.reliableQueue("outage:async-queue").push("async, after the restart"));
            // the waiter subscribes once Redis is back; signal until it heard one (a signal before that is missed)
            while (!signalled.isDone()) {
                try {
                    producer.signals().signal("outage:signal", "after the restart");
                } catch (NodeUnavailableException reconnecting) {
                    // the producer's own connection may still be on its way back
                }
                Thread.sleep(50);
            }
            for (Future<?> w : waits) {
                Object won = w.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS);
                assertThat(won).isNotNull();
                close(won);
            }
            Delivery d = taken.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS);
            assertThat(d.text()).isEqualTo("after the restart");
            d.ack();
            assertThat(new String(popped.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS), StandardCharsets.UTF_8))
                    .isEqualTo("plain, after the restart");
            assertThat(signalled.get()).isEqualTo("after the restart");
            Delivery async = takenAsync.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS).orElseThrow();
            assertThat(async.text()).isEqualTo("async, after the restart");
            async.ack();
            asyncConsumer.close();
            assertThat(rated.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS)).as("a rate limiter's wait").isTrue();
            assertThat(ratedAsync.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS)).as("its async form").isTrue();
            assertThat(limiter.tryAcquire().granted()).as("the permit was granted once, not once per try").isFalse();
            System.out.printf("waits across a restart: Redis down %d ms, every wait won%n",
                    TimeUnit.NANOSECONDS.toMillis(back - down));
            consumer.close();
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * Five masters started just now: the restart guard refuses their votes for the TTL plus a second. A wait longer
     * than that acquires, pausing for what is left of the window rather than asking again and again: each node is
     * asked for its uptime a few times, not once per backoff step.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void freshRedlockMastersAreWaitedForAsLongAsTheGuardSays() throws Exception {
        List<RedisServer> servers = startMasters(5);
        try (Coordis coordis = TestClients.connect(servers.stream().map(RedisServer::uri).toList())) {
            DistributedLock lock = coordis.lock("outage:fresh", LockOptions.defaults().withTtl(Duration.ofSeconds(2)));
            List<Long> before = servers.stream().map(s -> commandCalls(s, "info")).toList();
            long start = System.nanoTime();
            Optional<Lease> lease = lock.acquire(Duration.ofSeconds(10));
            long took = System.nanoTime() - start;
            assertThat(lease).as("acquired within the wait").isPresent();
            // the masters started one after another: the first three trusted make a majority
            assertThat(lease.get().votes()).extracting(NodeVote::vote).filteredOn(v -> v == NodeVote.Vote.ACQUIRED)
                    .hasSizeGreaterThanOrEqualTo(3);
            lease.get().release();
            for (int i = 0; i < servers.size(); i++) {
                long asked = commandCalls(servers.get(i), "info") - before.get(i);
                // the first try (refused, with the window's rest) and the one after the pause; a blind backoff of
                // 50 ms doubling to 1 s would have asked about eight times in those three seconds
                assertThat(asked).as("uptime checks of %s", servers.get(i).address()).isBetween(1L, 3L);
            }
            System.out.printf("fresh Redlock masters: acquired after %d ms%n", TimeUnit.NANOSECONDS.toMillis(took));
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    /** Three of five masters down, back 1.5 s later: a majority again, and the wait acquires. */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aMajorityOfMastersBackWithinTheWaitIsWaitedFor() throws Exception {
        List<RedisServer> servers = startMasters(5);
        try (Coordis coordis = TestClients.connect(servers.stream().map(RedisServer::uri).toList())) {
            // no guard: this is about nodes coming back, not about trusting them (the test above covers that)
            DistributedLock lock = coordis.lock("outage:majority", LockOptions.defaults().withRestartGuard(false));
            lock.tryAcquire().orElseThrow().release(); // every node connected
            for (RedisServer s : servers.subList(0, 3)) {
                s.kill();
            }
            Future<Optional<Lease>> waiting = lock.acquireAsync(WAIT);
            Thread.sleep(DOWN.toMillis() / 3); // the wait is under way, with the majority down
            assertThat(waiting).as("no majority yet").isNotDone();
            for (RedisServer s : servers.subList(0, 3)) {
                s.restart(Duration.ZERO);
            }
            Optional<Lease> lease = waiting.get(WAIT.toSeconds() + 30, TimeUnit.SECONDS);
            assertThat(lease).isPresent();
            lease.get().release();
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    /**
     * A rate limiter's wait whose budget runs out while Redis is still down ends with the last failure, naming the
     * limiter: not at once (it tried for the whole budget) and not much later (a try in flight takes at most the
     * command timeout). Blocking and async alike.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aRateLimiterWaitWhoseBudgetRunsOutDuringTheOutageReportsTheLastFailure() throws Exception {
        Duration budget = Duration.ofSeconds(3);
        Duration margin = Coordis.DEFAULT_COMMAND_TIMEOUT.plusSeconds(5);
        try (RedisServer server = RedisServer.builder().start();
             Coordis coordis = TestClients.connect(server.uri())) {
            RateLimiter limiter = coordis.rateLimiter("outage:rate-spent", RateLimit.parse("10/1s"));
            assertThat(limiter.tryAcquire().granted()).isTrue(); // connected, script loaded
            server.kill();
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> limiter.acquire(budget));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(t).isInstanceOf(NodeUnavailableException.class)
                    .hasMessageStartingWith("rate limiter 'outage:rate-spent': ").hasMessageContaining(server.address());
            assertThat(took).as("tried for the whole budget, and not much longer")
                    .isBetween(budget.minusMillis(50), budget.plus(margin));

            start = System.nanoTime();
            Throwable async = catchThrowable(() -> limiter.acquireAsync(1, budget).get(60, TimeUnit.SECONDS));
            took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(async).isInstanceOf(java.util.concurrent.ExecutionException.class)
                    .cause().isInstanceOf(NodeUnavailableException.class)
                    .hasMessageStartingWith("rate limiter 'outage:rate-spent': ");
            assertThat(took).as("async: the whole budget, and not much longer")
                    .isBetween(budget.minusMillis(50), budget.plus(margin));
        }
    }

    /**
     * A rate limiter's try does not wait: {@code tryAcquire} and a wait of zero fail at once with Redis down, and a
     * key of another type ends a long wait at once.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRateLimiterTryAndAPermanentFailureDoNotWait() throws Exception {
        try (RedisServer server = RedisServer.builder().start();
             Coordis coordis = TestClients.connect(server.uri())) {
            RateLimiter wrong = coordis.rateLimiter("outage:rate-wrongtype", RateLimit.parse("10/1s"));
            server.command("HSET", Prefixed.derived("outage:rate-wrongtype", "rate"), "a", "b");
            long start = System.nanoTime();
            assertThat(catchThrowable(() -> wrong.acquire(Duration.ofSeconds(60))))
                    .isInstanceOf(WrongTypeException.class).hasMessageStartingWith("rate limiter 'outage:rate-wrongtype'");
            assertThat(catchThrowable(() -> wrong.acquireAsync(1, Duration.ofSeconds(60)).join()))
                    .cause().isInstanceOf(WrongTypeException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not waited out")
                    .isLessThan(Duration.ofSeconds(30));

            RateLimiter limiter = coordis.rateLimiter("outage:rate-try", RateLimit.parse("10/1s"));
            server.kill();
            for (ThrowingCallable call : List.<ThrowingCallable>of(limiter::tryAcquire,
                    () -> limiter.acquire(Duration.ZERO), () -> limiter.tryAcquireAsync(1).join())) {
                start = System.nanoTime();
                Throwable t = catchThrowable(call);
                assertThat(t instanceof java.util.concurrent.CompletionException ? t.getCause() : t)
                        .isInstanceOf(NodeUnavailableException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("one try")
                        .isLessThan(Coordis.DEFAULT_COMMAND_TIMEOUT.plusSeconds(5));
            }
        }
    }

    /** A permanent failure is not an outage: a key of the wrong type ends a long wait at once. */
    @Test
    void aPermanentFailureEndsTheWaitAtOnce() throws Exception {
        try (RedisServer server = RedisServer.builder().start();
             Coordis coordis = TestClients.connect(server.uri())) {
            server.command("RPUSH", Prefixed.key("outage:wrongtype"), "x");
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> coordis.lock("outage:wrongtype").acquire(Duration.ofSeconds(60)));
            assertThat(t).isInstanceOf(WrongTypeException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not waited out")
                    .isLessThan(Duration.ofSeconds(30));
        }
    }

    /** A wait that may not wait fails at once on an outage: {@code tryAcquire} with Redis down. */
    @Test
    void aTryDoesNotWait() throws Exception {
        try (RedisServer server = RedisServer.builder().start();
             Coordis coordis = TestClients.connect(server.uri())) {
            server.kill();
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> coordis.lock("outage:try").tryAcquire());
            assertThat(t).isInstanceOf(NodeUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("one try")
                    .isLessThan(Coordis.DEFAULT_COMMAND_TIMEOUT.plusSeconds(5));
        }
    }

    /** A call that may find its connection still on its way back. */
    @FunctionalInterface
    private interface Send {
        void run() throws Exception;
    }

    /** Runs {@code send} until it does not fail with the node unavailable, for at most 30 s. */
    private static void untilSent(Send send) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                send.run();
                return;
            } catch (NodeUnavailableException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    private static List<RedisServer> startMasters(int n) {
        List<RedisServer> servers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            servers.add(RedisServer.builder().start());
        }
        return servers;
    }

    private static long commandCalls(RedisServer server, String command) {
        String line = server.info("commandstats").get("cmdstat_" + command);
        if (line == null) {
            return 0;
        }
        for (String field : line.split(",")) {
            if (field.startsWith("calls=")) {
                return Long.parseLong(field.substring("calls=".length()));
            }
        }
        return 0;
    }

    private static void close(Object won) throws Exception {
        if (won instanceof Lease l) {
            l.release();
        } else if (won instanceof Leadership l) {
            l.resign();
        } else if (won instanceof AutoCloseable c) {
            c.close();
        }
    }
}
