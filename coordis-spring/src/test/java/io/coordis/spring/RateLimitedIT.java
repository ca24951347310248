package io.coordis.spring;

import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link RateLimited} methods of two application contexts (two clients) on one Redis. */
class RateLimitedIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** The hammered limit: a burst of a whole second, so that a stall of the machine shorter than that loses nothing. */
    static final RateLimit HAMMERED = RateLimit.parse("100/1s");
    static AnnotationConfigApplicationContext a;
    static AnnotationConfigApplicationContext b;

    @BeforeAll
    static void start() {
        a = TestContexts.start("a", redis.uri(), LimitedCalls.class, RateLimitedExample.class);
        b = TestContexts.start("b", redis.uri(), LimitedCalls.class, RateLimitedExample.class);
    }

    @AfterAll
    static void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    /** The methods under test, called through the Spring proxy (so the counters are read through methods too). */
    public static class LimitedCalls {
        private final AtomicInteger ran = new AtomicInteger();

        public int ran() {
            return ran.get();
        }

        @RateLimited(name = "calls:warm-up", limit = "100/1s")
        public void warmUp() {
        }

        @RateLimited(name = "calls:shared", limit = "100/1s")
        public void shared() {
            ran.incrementAndGet();
        }

        /** Broken on purpose: each context names its own limiter, so the two together get twice the allowance. */
        @RateLimited(name = "calls:${instance}", limit = "100/1s")
        public void perInstance() {
            ran.incrementAndGet();
        }

        @RateLimited(name = "calls:user", limit = "2/1h", key = "#user", whenLimited = WhenBusy.SKIP)
        public String forUser(String user) {
            return "ran for " + user;
        }

        @RateLimited(name = "calls:#{#p0}", limit = "1/1h", whenLimited = WhenBusy.SKIP)
        public String forTenant(String tenant) {
            return "ran for " + tenant;
        }

        @RateLimited(name = "calls:optional", limit = "1/1h", whenLimited = WhenBusy.SKIP)
        public Optional<String> optional() {
            return Optional.of("ran");
        }

        @RateLimited(name = "calls:void", limit = "1/1h", whenLimited = WhenBusy.SKIP)
        public void skipsVoid() {
            ran.incrementAndGet();
        }

        @RateLimited(name = "calls:strict", limit = "1/1h")
        public String strict() {
            return "ran";
        }

        @RateLimited(name = "calls:paced", limit = "2/1s", burst = 1, whenLimited = WhenBusy.WAIT, maxWait = "20s")
        public String paced() {
            return "ran";
        }

        @RateLimited(name = "calls:brief", limit = "1/1h", whenLimited = WhenBusy.WAIT, maxWait = "200ms")
        public String brief() {
            return "ran";
        }
    }

    static LimitedCalls calls(AnnotationConfigApplicationContext context) {
        return context.getBean(LimitedCalls.class);
    }

    /** What a hammering counted: the grants, and Redis's clock before the first and around the count (µs). */
    record Hammered(long granted, long denied, Duration longestRetryAfter, double start, double before, double after) {
        /** The most a limiter of {@link #HAMMERED} may grant over the run: burst + rate × time, plus one for rounding. */
        double atMost() {
            return HAMMERED.burst() + (after - start) / micros(HAMMERED.interval()) + 1;
        }

        /** What it grants at least to callers that always ask: burst + rate × time up to the count. */
        double atLeast() {
            return HAMMERED.burst() + (before - start) / micros(HAMMERED.interval());
        }
    }

    /**
     * Calls {@code job} from 3 threads per context, far above the limit, for 3 s of Redis's clock. The threads call
     * another limited method first and switch when told, so that every thread is running when the measured limiter
     * gets its first call (a thread woken late could leave it idle, and a full idle limiter gains nothing).
     */
    static Hammered hammer(Job job) throws Exception {
        AtomicReference<Job> target = new AtomicReference<>(LimitedCalls::warmUp);
        AtomicLong denied = new AtomicLong();
        AtomicReference<Duration> longest = new AtomicReference<>(Duration.ZERO);
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> workers = new ArrayList<>();
        for (AnnotationConfigApplicationContext context : List.of(a, b)) {
            LimitedCalls calls = calls(context);
            for (int t = 0; t < 3; t++) {
                workers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        Job asked = target.get();
                        try {
                            asked.run(calls);
                        } catch (RateLimitedException e) {
                            if (asked == job) {
                                denied.incrementAndGet();
                                longest.accumulateAndGet(e.retryAfter(), (x, y) -> x.compareTo(y) >= 0 ? x : y);
                            }
                        }
                    }
                    return null;
                }));
            }
        }
        try (RespClient clock = redis.server().client()) {
            Thread.sleep(500);
            double start = redisMicros(clock); // every grant of the measured limiter is decided after this
            target.set(job);
            Thread.sleep(3_000);
            // read between two readings of the clock: every grant counted was decided before the second, and every
            // grant decided before the first is counted unless its method had not yet run (one per thread)
            double before = redisMicros(clock);
            long granted = calls(a).ran() + calls(b).ran();
            double after = redisMicros(clock);
            stop.set(true);
            for (Future<?> w : workers) {
                w.get(20, TimeUnit.SECONDS);
            }
            return new Hammered(granted, denied.get(), longest.get(), start, before, after);
        } finally {
            pool.shutdownNow();
        }
    }

    interface Job {
        void run(LimitedCalls calls);
    }

    @Test
    @Timeout(60)
    void callsOfTwoContextsFarAboveTheLimitGetRateTimesTimePlusBurst() throws Exception {
        int ranBefore = calls(a).ran() + calls(b).ran();
        Hammered h = hammer(LimitedCalls::shared);
        long granted = h.granted() - ranBefore;
        System.out.printf("RateLimitedIT: %d granted, %d denied over %.3f s of Redis time; allowed %.1f%n",
                granted, h.denied(), (h.after() - h.start()) / 1e6, h.atMost());
        assertThat(h.denied()).as("asked far above the limit").isGreaterThan(granted);
        assertThat((double) granted).as("never above rate × time + burst").isLessThanOrEqualTo(h.atMost());
        assertThat((double) granted + 6).as("within 5 %% below it").isGreaterThanOrEqualTo(h.atLeast() * 0.95);
        assertThat(h.longestRetryAfter()).as("a denied call is told when the next permit is due")
                .isPositive().isLessThanOrEqualTo(HAMMERED.interval());
    }

    @Test
    @Timeout(60)
    void theAllowanceCheckCatchesALimiterNamedPerContext() throws Exception {
        int ranBefore = calls(a).ran() + calls(b).ran();
        Hammered h = hammer(LimitedCalls::perInstance);
        long granted = h.granted() - ranBefore;
        System.out.printf("RateLimitedIT (broken on purpose): %d granted over %.3f s; allowed %.1f%n",
                granted, (h.after() - h.start()) / 1e6, h.atMost());
        assertThat((double) granted).as("a limiter per context grants each context the allowance")
                .isGreaterThan(h.atMost());
    }

    @Test
    void aDeniedCallThrowsNamingTheLimiterAndWhenAPermitIsDue() {
        assertThat(calls(a).strict()).isEqualTo("ran");
        assertThatThrownBy(() -> calls(b).strict()).isInstanceOfSatisfying(RateLimitedException.class, e -> {
            assertThat(e.limiterName()).isEqualTo("calls:strict");
            assertThat(e.retryAfter()).isGreaterThan(Duration.ofMinutes(59)).isLessThanOrEqualTo(Duration.ofHours(1));
            assertThat(e).hasMessageMatching("rate limiter 'calls:strict' \\(1/1h\\) granted no permit; the next is "
                    + "due in [0-9.]+(ms|s|m|h); LimitedCalls.strict\\(\\) did not run");
        });
    }

    @Test
    void deniedCallsSkipWhenToldTo() {
        LimitedCalls calls = calls(a);
        assertThat(calls.optional()).contains("ran");
        assertThat(calls(b).optional()).as("an Optional method answers empty").isEmpty();
        int ranBefore = calls.ran();
        calls.skipsVoid();
        calls.skipsVoid();
        assertThat(calls.ran()).as("a void method runs once, then skips").isEqualTo(ranBefore + 1);
    }

    @Test
    void eachKeyHasALimiterOfItsOwnSharedByEveryContext() {
        assertThat(calls(a).forUser("alice")).isEqualTo("ran for alice");
        assertThat(calls(b).forUser("alice")).isEqualTo("ran for alice");
        assertThat(calls(a).forUser("alice")).as("alice has had her 2").isNull();
        assertThat(calls(b).forUser("bob")).as("bob is counted apart").isEqualTo("ran for bob");
        assertThat(calls(a).forUser("bob")).isEqualTo("ran for bob");
        assertThat(calls(b).forUser("bob")).isNull();
        assertThat(redis.server().command("EXISTS", Prefixed.derived("calls:user:alice", "rate"))).isEqualTo(1L);

        assertThat(calls(a).forTenant("acme")).as("a SpEL name").isEqualTo("ran for acme");
        assertThat(calls(b).forTenant("acme")).isNull();
        assertThat(calls(b).forTenant("globex")).isEqualTo("ran for globex");
        assertThat(redis.server().command("EXISTS", Prefixed.derived("calls:acme", "rate"))).isEqualTo(1L);
    }

    @Test
    @Timeout(60)
    void aWaitingCallWaitsForItsPermit() {
        // one permit every 500 ms, no burst: the fourth call's permit is due 1.5 s after the first's, which is
        // granted after `start`; a wait is counted from when its request left, so it may end one trip to Redis early
        long start = System.nanoTime();
        for (int i = 0; i < 4; i++) {
            assertThat(calls(i % 2 == 0 ? a : b).paced()).isEqualTo("ran");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(1_200));
    }

    @Test
    void aBoundedWaitThatCannotBeMetThrowsAtOnce() {
        assertThat(calls(a).brief()).isEqualTo("ran");
        assertThatThrownBy(() -> calls(b).brief()).isInstanceOf(RateLimitedException.class)
                .hasMessageStartingWith("rate limiter 'calls:brief' (1/1h) granted no permit within 200ms; the next is "
                        + "due in ");
    }

    @Test
    void oneLimiterIsKeptPerNameKeyAndLimit() throws Exception {
        RateLimitedAdvice advice = new RateLimitedAdvice();
        Attributes attributes = new Attributes(a.getBeanFactory());
        Method forUser = LimitedCalls.class.getMethod("forUser", String.class);
        RateLimitedAdvice.Settings settings = advice.settings(forUser, attributes).orElseThrow();
        RateLimiter alice = advice.limiter(settings, new Object[] {"alice"}, attributes);
        assertThat(alice.name()).isEqualTo("calls:user:alice");
        assertThat(advice.limiter(settings, new Object[] {"alice"}, attributes)).isSameAs(alice);
        assertThat(advice.limiter(settings, new Object[] {"bob"}, attributes)).isNotSameAs(alice);
        Method strict = LimitedCalls.class.getMethod("strict");
        RateLimitedAdvice.Settings literal = advice.settings(strict, attributes).orElseThrow();
        assertThat(advice.limiter(literal, new Object[0], attributes))
                .isSameAs(advice.limiter(literal, new Object[0], attributes));
    }

    @Test
    @Timeout(60)
    void theReadmeExampleLimitsEachUserAndPacesTheMailer() {
        RateLimitedExample inA = a.getBean(RateLimitedExample.class);
        RateLimitedExample inB = b.getBean(RateLimitedExample.class);
        for (int i = 0; i < 10; i++) {
            assertThat((i % 2 == 0 ? inA : inB).search("alice", "q" + i)).containsExactly("alice searched q" + i);
        }
        assertThatThrownBy(() -> inA.search("alice", "one more")).isInstanceOfSatisfying(RateLimitedException.class,
                e -> assertThat(e.limiterName()).isEqualTo("api:search:alice"));
        assertThat(inB.search("bob", "q")).containsExactly("bob searched q");

        long start = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            inA.send("mail " + i); // a burst of 5, then one every 200 ms
        }
        assertThat(inA.sent()).hasSize(8);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the last 3 waited their turns, due 600 ms on")
                .isGreaterThan(Duration.ofMillis(400));
    }

    @SuppressWarnings("unchecked")
    static double redisMicros(RespClient clock) {
        List<Object> time = (List<Object>) clock.command("TIME");
        return Long.parseLong(time.get(0).toString()) * 1e6 + Long.parseLong(time.get(1).toString());
    }

    static double micros(Duration d) {
        return d.toNanos() / 1e3;
    }
}
