package io.coordis.ratelimit;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The rate limiter in one JVM against a real Redis: threads hammering far above the limit are granted rate × time +
 * burst, counted against Redis's clock; a wait reserves at the due time and never outlasts its budget; members of a
 * family are independent and their keys expire; and a hot key costs one script call per decision.
 */
class RateLimiterIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** How late a sleeping thread may wake on a busy machine, in ms: the waits end on time, the scheduler decides. */
    private static final long SLACK = 250;

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    @Timeout(30)
    void threadsHammeringFarAboveTheLimitAreGrantedRateTimesTimePlusBurst() throws Exception {
        RateLimit rate = RateLimit.of(200, Duration.ofSeconds(1)); // a burst of a second: a stall shorter loses nothing
        RateLimiter limiter = client.rateLimiter("rl:hammer", rate);
        // the threads hammer another limiter first and switch when told: running threads ask the measured limiter at
        // once, where threads woken from a wait could take long enough on a busy machine to leave it idle (a full
        // idle limiter gains nothing)
        AtomicReference<RateLimiter> target = new AtomicReference<>(client.rateLimiter("rl:warm-up", rate));
        RespClient clock = redis.server().client();
        AtomicLong granted = new AtomicLong();
        AtomicLong denied = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    RateLimiter asked = target.get();
                    boolean yes = asked.tryAcquire().granted();
                    if (asked == limiter) {
                        (yes ? granted : denied).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        Thread.sleep(500);
        double start = redisMicros(clock); // every grant of the measured limiter is decided after this
        target.set(limiter);
        Thread.sleep(5_000);
        // the count is read between two readings of Redis's clock: every grant in it was decided before the second,
        // and every grant decided before the first is in it unless its reply was still in flight (one per thread)
        double before = redisMicros(clock);
        long counted = granted.get();
        double after = redisMicros(clock);
        stop.set(true);
        for (Future<?> w : workers) {
            w.get(10, TimeUnit.SECONDS);
        }
        pool.shutdown();
        clock.close();
        double interval = micros(rate.interval());
        double atMost = rate.burst() + (after - start) / interval;
        double atLeast = rate.burst() + (before - start) / interval;
        System.out.printf("RateLimiterIT: %d granted, %d denied over %.3f s of Redis time; allowed %.1f%n",
                counted, denied.get(), (after - start) / 1e6, atMost);
        assertThat(denied.get()).as("asked far above the limit").isGreaterThan(10L * counted);
        assertThat((double) counted).as("never above rate × time + burst").isLessThanOrEqualTo(atMost + 1);
        assertThat((double) counted + 8).as("within 1 %% plus one permit below it")
                .isGreaterThanOrEqualTo(atLeast * 0.99 - 1);
    }

    @Test
    @Timeout(20)
    void aWaitReservesAtTheDueTimeAndNeverOutlastsItsBudget() throws Exception {
        RateLimit rate = RateLimit.of(10, Duration.ofSeconds(1)).withBurst(1);
        RateLimiter limiter = client.rateLimiter("rl:wait", rate);
        long first = System.nanoTime(); // the first permit is granted after this, the next is due 100 ms later
        assertThat(limiter.acquire(Duration.ZERO)).isTrue();
        Decision no = limiter.tryAcquire();
        assertThat(no.granted()).isFalse();
        assertThat(no.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(100));

        long began = System.nanoTime();
        assertThat(limiter.acquire(Duration.ofMillis(500))).isTrue();
        long ended = System.nanoTime();
        // woken at the due time, counted from when the request left (so up to its way to Redis early)
        assertThat(Duration.ofNanos(ended - first)).as("not before the due time").isGreaterThan(Duration.ofMillis(80));
        assertThat(Duration.ofNanos(ended - began)).as("within the budget").isLessThan(Duration.ofMillis(500 + SLACK));

        // four more, one every 100 ms: the last is due in 400 ms, within a budget of 450 ms
        List<Long> took = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            long t = System.nanoTime();
            assertThat(limiter.acquire(Duration.ofMillis(450))).isTrue();
            took.add(System.nanoTime() - t);
        }
        System.out.println("RateLimiterIT: sequential waits (ms) " + took.stream().map(n -> n / 1_000_000).toList());
        for (long t : took) {
            assertThat(Duration.ofNanos(t)).isLessThan(Duration.ofMillis(450 + SLACK));
        }

        // reservations queue up: three at once are due 100, 200 and 300 ms ahead, and each returns at its due time
        Thread.sleep(150); // idle: back at the full (single) permit
        assertThat(limiter.tryAcquire().granted()).isTrue();
        long queued = System.nanoTime();
        List<CompletableFuture<Long>> reserved = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            reserved.add(limiter.acquireAsync(1, Duration.ofSeconds(1))
                    .thenApply(ok -> ok ? System.nanoTime() - queued : -1));
        }
        List<Long> dueAfter = new ArrayList<>();
        for (CompletableFuture<Long> r : reserved) {
            dueAfter.add(r.get(5, TimeUnit.SECONDS));
        }
        System.out.println("RateLimiterIT: reserved waits (ms) " + dueAfter.stream().map(n -> n / 1_000_000).toList());
        assertThat(dueAfter).allSatisfy(n -> assertThat(n).isPositive());
        assertThat(Duration.ofNanos(dueAfter.stream().mapToLong(n -> n).max().orElseThrow()))
                .as("the last is due 300 ms on").isBetween(Duration.ofMillis(250), Duration.ofMillis(1_000 + SLACK));

        // a wait within which the permit cannot be due says so at once
        RateLimiter slow = client.rateLimiter("rl:slow", RateLimit.parse("1/10s"));
        assertThat(slow.tryAcquire().granted()).isTrue();
        long asked = System.nanoTime();
        assertThat(slow.acquire(Duration.ofSeconds(1))).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - asked)).as("answered at once").isLessThan(Duration.ofSeconds(1));
        assertThat(slow.tryAcquire().retryAfter()).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
    }

    @Test
    @Timeout(20)
    void membersOfAFamilyAreIndependentAndTheirKeysExpire() throws Exception {
        RateLimiter users = client.rateLimiter("rl:users", RateLimit.parse("3/300ms"));
        RateLimiter alice = users.forKey("alice");
        RateLimiter bob = users.forKey("bob");
        assertThat(alice.name()).isEqualTo("rl:users:alice");
        for (int i = 0; i < 3; i++) {
            assertThat(alice.tryAcquire().granted()).isTrue();
        }
        assertThat(alice.tryAcquire().granted()).isFalse();
        assertThat(bob.tryAcquire(3).granted()).as("bob has his own permits").isTrue();
        assertThatThrownBy(() -> alice.tryAcquire(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceed the burst");
        assertThatThrownBy(() -> users.forKey("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be empty");

        String aliceKey = Prefixed.derived("rl:users:alice", "rate");
        assertThat(redis.server().command("EXISTS", aliceKey)).isEqualTo(1L);
        long pttl = (Long) redis.server().command("PTTL", aliceKey);
        assertThat(pttl).as("lives until the limiter is back at its full burst").isBetween(1L, 300L);
        assertThat(redis.server().command("EXISTS", Prefixed.derived("rl:users", "rate")))
                .as("the family's own key is not touched by its members").isEqualTo(0L);
        Thread.sleep(pttl + 50);
        assertThat(redis.server().command("EXISTS", aliceKey)).as("expired when idle").isEqualTo(0L);
        assertThat(redis.server().command("EXISTS", Prefixed.derived("rl:users:bob", "rate"))).isEqualTo(0L);
        assertThat(alice.tryAcquire(3).granted()).as("an absent key is an idle limiter").isTrue();
    }

    @Test
    @Timeout(30)
    void aHotKeyCostsOneScriptCallPerDecision() throws Exception {
        RateLimiter hot = client.rateLimiter("rl:hot", RateLimit.parse("1000/1s"));
        hot.tryAcquire(); // loads the script, so that no NOSCRIPT round is counted
        redis.server().command("CONFIG", "RESETSTAT");
        int threads = 16;
        int each = 300;
        long[][] nanos = new long[threads][each];
        AtomicLong granted = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            workers.add(pool.submit(() -> {
                for (int i = 0; i < each; i++) {
                    long s = System.nanoTime();
                    if (hot.tryAcquire().granted()) {
                        granted.incrementAndGet();
                    }
                    nanos[me][i] = System.nanoTime() - s;
                }
            }));
        }
        for (Future<?> w : workers) {
            w.get(20, TimeUnit.SECONDS);
        }
        pool.shutdown();
        String stats = (String) redis.server().command("INFO", "commandstats");
        long[] all = Arrays.stream(nanos).flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("RateLimiterIT: hot key, %d threads, %d decisions (%d granted): p50 %.2f ms, p99 %.2f ms%n",
                threads, all.length, granted.get(), all[all.length / 2] / 1e6, all[all.length * 99 / 100] / 1e6);
        long decisions = (long) threads * each;
        assertThat(calls(stats, "evalsha")).as("one script call per decision").isEqualTo(decisions);
        // inside the script (Redis counts those too): one TIME and one GET per decision, a SET per grant only
        assertThat(calls(stats, "time")).isEqualTo(decisions);
        assertThat(calls(stats, "get")).isEqualTo(decisions);
        assertThat(calls(stats, "set")).isEqualTo(granted.get());
        for (String other : new String[] {"eval", "watch", "multi", "exec"}) {
            assertThat(calls(stats, other)).as(other).isZero();
        }
    }

    @Test
    @Timeout(20)
    void theReadmeExampleRuns() throws Exception {
        List<String> replies = new ArrayList<>();
        RateLimiterExample.Reply reply = new RateLimiterExample.Reply() {
            @Override
            public void tooManyRequests(Duration retryAfter) {
                replies.add("429 " + retryAfter.toMillis());
            }

            @Override
            public void search(String query) {
                replies.add(query);
            }
        };
        for (int i = 0; i < 20; i++) {
            RateLimiterExample.handle(client, "alice", "q" + i, reply); // within the burst of 20
        }
        assertThat(replies).startsWith("q0", "export q0", "q1").contains("q19", "export q19")
                .noneMatch(r -> r.startsWith("429"));
        // with alice's permits spent (10 a second come back), the example refuses her and says when to come back
        RateLimiter alice = client.rateLimiter("api:search", RateLimit.parse("10/1s").withBurst(20)).forKey("alice");
        for (int i = 0; i < 20 && replies.stream().noneMatch(r -> r.startsWith("429")); i++) {
            while (alice.tryAcquire().granted()) {
                // spend what came back
            }
            RateLimiterExample.handle(client, "alice", "late", reply);
        }
        assertThat(replies.get(replies.size() - 1)).matches("429 \\d+");
    }

    private static long calls(String commandStats, String command) {
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                String calls = line.substring(line.indexOf("calls=") + 6);
                return Long.parseLong(calls.substring(0, calls.indexOf(',')));
            }
        }
        return 0;
    }

    /** Redis's clock in microseconds since the epoch, read on {@code clock}. */
    @SuppressWarnings("unchecked")
    static double redisMicros(RespClient clock) {
        List<Object> time = (List<Object>) clock.command("TIME");
        return Long.parseLong(time.get(0).toString()) * 1e6 + Long.parseLong(time.get(1).toString());
    }

    private static double micros(Duration d) {
        return d.toNanos() / 1e3;
    }
}
