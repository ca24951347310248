package io.coordis;

import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.latch.CountDownLatch;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Permit;
import io.coordis.lock.ReadWriteLock;
import io.coordis.lock.Semaphore;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.Queue;
import io.coordis.queue.ReliableQueue;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis's footprint stays bounded however many names were ever used: after N lock names (each acquired and
 * released once) and M each of semaphores, read-write locks, elections (campaign, resign), latched events,
 * emptied queues, rate limiters (permits taken), count-down latches (one opened, one left counting) and fair locks
 * (held, another client's waiter lined up and granted after the release), and once every hold's TTL, the counters'
 * retention, the latches' expiry, the limiters' idle time and the lines' last lapse have passed, at most
 * 16,384 + 100 keys are left without expiry, nothing expires later than a day, and {@code used_memory} grew by at
 * most 5 MB.
 *
 * <p>N is 20,000 and M 500 by default; {@code -Dcoordis.footprintNames=1000000} (and
 * {@code -Dcoordis.footprintObjects}) for the scale run, see docs/performance.md. The figures are printed before
 * the assertions, so a failing run shows them.
 */
class FootprintIT {
    private static final int NAMES = Integer.getInteger("coordis.footprintNames", 20_000);
    private static final int OBJECTS = Integer.getInteger("coordis.footprintObjects", 500);
    private static final int THREADS = 16;
    private static final long SLOTS = 16_384;
    private static final Duration TTL = Duration.ofMillis(500);
    private static final Duration RETENTION = Duration.ofSeconds(1);
    private static final long DAY_MS = Duration.ofDays(1).toMillis();
    private static final long MAX_GROWTH = 5L * 1024 * 1024;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void namesUsedOnceLeaveAFewKeysAndFewMegabytes() throws Exception {
        RedisServer server = redis.server();
        long before = usedMemory(server);
        long started = System.nanoTime();
        try (Coordis coordis = TestClients.connect(redis.uri());
             Coordis other = TestClients.connect(redis.uri())) {
            // the counters' retention shortened from its 10 minutes, so that the test need not wait that long
            LockOptions shortHold = LockOptions.defaults().withTtl(TTL).withAutoRenew(false)
                    .withCounterRetention(RETENTION);
            // held until released, however long the waiter takes to line up on a busy machine
            LockOptions fairHold = shortHold.withTtl(Duration.ofSeconds(10)).withFair(true);
            run(NAMES, i -> {
                Lease lease = coordis.lock("fp:lock:" + i, shortHold).tryAcquire().orElseThrow();
                assertThat(lease.release()).isTrue();
            });
            run(OBJECTS, i -> {
                Semaphore semaphore = coordis.semaphore("fp:semaphore:" + i, 2, shortHold);
                Permit permit = semaphore.tryAcquire().orElseThrow();
                assertThat(permit.release()).isTrue();

                ReadWriteLock rw = coordis.readWriteLock("fp:rw:" + i, shortHold);
                Lease read = rw.readLock().tryAcquire().orElseThrow();
                assertThat(read.release()).isTrue();
                Lease write = rw.writeLock().tryAcquire().orElseThrow();
                assertThat(write.release()).isTrue();

                try (LeaderElection election = coordis.election("fp:election:" + i,
                        ElectionOptions.defaults().withTtl(ElectionOptions.MIN_TTL).withCounterRetention(RETENTION))) {
                    Leadership leadership = election.campaign(Duration.ofSeconds(10)).orElseThrow();
                    assertThat(leadership.resign()).isTrue();
                }

                coordis.signals().signal("fp:signal:" + i, "hello");
                coordis.signals().event("fp:event:" + i, TTL).signal("set");

                Queue queue = coordis.queue("fp:queue:" + i);
                queue.push("one");
                assertThat(queue.pop()).isPresent();

                ReliableQueue reliable = coordis.reliableQueue("fp:reliable:" + i);
                reliable.push("one");
                try (Consumer consumer = reliable.consumer()) {
                    Optional<Delivery> delivery = consumer.take(Duration.ofSeconds(10));
                    delivery.orElseThrow().ack();
                }

                RateLimiter limiter = coordis.rateLimiter("fp:rate:" + i, RateLimit.parse("10/1s"));
                assertThat(limiter.tryAcquire(3).granted()).isTrue(); // idle again 300 ms later

                CountDownLatch opened = coordis.countDownLatch("fp:latch:" + i, 2, TTL);
                opened.countDown();
                assertThat(opened.countDown()).isZero();
                assertThat(opened.await(Duration.ofSeconds(10))).isTrue();
                assertThat(coordis.countDownLatch("fp:latch-counting:" + i, 2, TTL).countDown()).isEqualTo(1L);

                DistributedLock fair = coordis.lock("fp:fair:" + i, fairHold);
                Lease held = fair.tryAcquire().orElseThrow();
                // another client's waiter: one of the holder's own would wait behind it in the client, not at Redis
                CompletableFuture<Optional<Lease>> next = other.lock("fp:fair:" + i, fairHold)
                        .acquireAsync(Duration.ofSeconds(30));
                String line = Prefixed.derived("fp:fair:" + i, "line");
                await().atMost(Duration.ofSeconds(20)).until(() -> (Long) server.command("EXISTS", line) == 1L);
                assertThat(held.release()).isTrue();
                assertThat(next.get(30, TimeUnit.SECONDS).orElseThrow().release()).isTrue();
            });
        }
        long worked = System.nanoTime() - started;

        // every hold's TTL passes; keys expiring within a day are gone then (the shortest TTL here is 500 ms)
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> keys(server).expiringWithinADay == 0);
        Keys left = keys(server);
        long after = usedMemory(server);
        String figures = String.format(Locale.ROOT, "footprint: %,d lock names, %,d each of semaphores, read-write "
                        + "locks, elections, signals, events, queues, reliable queues, rate limiters, latches and fair "
                        + "locks, in %.1f s: %,d keys, %,d "
                        + "without expiry (%s), %,d expiring later than a day; used_memory %,d -> %,d bytes "
                        + "(%+.2f MB)",
                NAMES, OBJECTS, worked / 1e9, left.total, left.withoutExpiry, left.examples, left.expiringAfterADay,
                before, after, (after - before) / (1024.0 * 1024));
        System.out.println(figures);

        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(left.withoutExpiry).as("keys without expiry; " + figures).isLessThanOrEqualTo(SLOTS + 100);
        soft.assertThat(left.expiringAfterADay).as("keys expiring later than a day; " + figures).isZero();
        soft.assertThat(after - before).as("used_memory growth in bytes; " + figures).isLessThanOrEqualTo(MAX_GROWTH);
        soft.assertAll();
    }

    interface Step {
        void run(int i) throws Exception;
    }

    /** Runs {@code step} for 0..n-1 on {@link #THREADS} threads; fails with the first failure. */
    private static void run(int n, Step step) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        step.run(i);
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(30, TimeUnit.MINUTES);
            }
        } finally {
            next.set(n); // the others stop after a failure
            pool.shutdown();
            assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }
    }

    /** A key's kind for the figures: {@code {*}:fence} for {@code {fp:lock:7}:fence}, {@code fp:queue:*} for a name. */
    private static String kind(String key) {
        int close = key.lastIndexOf("}:");
        if (key.startsWith("{") && close > 0) {
            return "{*}" + key.substring(close + 1);
        }
        return key.replaceAll("\\d+", "*");
    }

    private static long usedMemory(RedisServer server) {
        return Long.parseLong(server.info("memory").get("used_memory"));
    }

    /** What a walk over the keyspace found. */
    private record Keys(long total, long withoutExpiry, long expiringWithinADay, long expiringAfterADay,
                        Map<String, Long> examples) {
    }

    /** SCAN over every key, PTTL of each page pipelined on one connection. */
    private static Keys keys(RedisServer server) {
        long total = 0;
        long none = 0;
        long soon = 0;
        long late = 0;
        Map<String, Long> examples = new TreeMap<>();
        try (RespClient c = server.client()) {
            String cursor = "0";
            do {
                List<?> page = (List<?>) c.command("SCAN", cursor, "COUNT", "1000");
                cursor = (String) page.get(0);
                List<?> keys = (List<?>) page.get(1);
                for (Object key : keys) {
                    c.send("PTTL", (String) key);
                }
                for (Object key : keys) {
                    long ttl = (Long) c.read();
                    if (ttl == -2) {
                        continue; // expired meanwhile
                    }
                    total++;
                    if (ttl == -1) {
                        none++;
                        examples.merge(kind((String) key), 1L, Long::sum);
                    } else if (ttl > DAY_MS) {
                        late++;
                    } else {
                        soon++;
                    }
                }
            } while (!cursor.equals("0"));
        }
        return new Keys(total, none, soon, late, examples);
    }
}
