package io.coordis.spring;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A badly annotated method stops the context at start-up with a message that names the method and what to write;
 * no Redis is needed for that (the client is looked up only when a method runs).
 */
class AnnotationErrorsTest {

    private static void assertStartFails(Object bean, String message) {
        assertThat(startFailure(bean)).contains(message);
    }

    /** The messages of the start-up failure and its causes. */
    private static List<String> startFailure(Object bean) {
        Throwable thrown = catchThrowable(() -> {
            try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
                context.register(Enabled.class);
                context.registerBean("bean", Object.class, () -> bean);
                context.refresh();
            }
        });
        assertThat(thrown).as("the context did not start").isNotNull();
        List<String> messages = new ArrayList<>();
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            messages.add(t.getMessage());
        }
        return messages;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCoordis
    static class Enabled {
    }

    public static class ReturnsWithoutWhenBusy {
        @Locked(name = "report")
        public String report() {
            return "done";
        }
    }

    @Test
    void aLockedMethodThatReturnsAValueMustSayWhatHappensWhenBusy() {
        assertStartFails(new ReturnsWithoutWhenBusy(), "@Locked on ReturnsWithoutWhenBusy.report() must say what happens "
                + "when the lock is busy, since the method returns a value: add whenBusy = WhenBusy.SKIP (the call "
                + "answers null, or Optional.empty()) or whenBusy = WhenBusy.WAIT (with maxWait = \"10s\" to bound the wait)");
    }

    public static class PrimitiveSkip {
        @Locked(name = "count", whenBusy = WhenBusy.SKIP)
        public int count() {
            return 1;
        }
    }

    @Test
    void aSkippedMethodMustBeAbleToAnswerSkipped() {
        assertStartFails(new PrimitiveSkip(), "@Locked on PrimitiveSkip.count(): the method returns int, which cannot "
                + "say that it was skipped; return Integer (null when skipped) or Optional (empty when skipped)");
    }

    public static class BadTtl {
        @Locked(name = "x", ttl = "thirty seconds")
        public void run() {
        }
    }

    @Test
    void aDurationMustParse() {
        assertStartFails(new BadTtl(), "@Locked on BadTtl.run() has ttl = \"thirty seconds\", which is not a duration; "
                + "write it like \"30s\", \"250ms\", \"2m\" or \"PT30S\"");
    }

    public static class TinyTtl {
        @Locked(name = "x", ttl = "10ms")
        public void run() {
        }
    }

    @Test
    void aTtlOutsideTheLocksBoundsIsRefused() {
        assertThat(startFailure(new TinyTtl()))
                .contains("@Locked on TinyTtl.run(): lock ttl must be at least 100ms, was 10ms");
    }

    public static class BadSpel {
        @Locked(name = "order:#{#orderId +}")
        public void run(String orderId) {
        }
    }

    @Test
    void aBrokenSpelNameIsRefused() {
        assertThat(startFailure(new BadSpel())).anyMatch(m -> m.startsWith(
                "@Locked on BadSpel.run(String) has name = \"order:#{#orderId +}\", whose "
                + "#{...} is not a valid SpEL expression"));
    }

    public static class TwoTtls {
        @LeaderOnly(value = "reports", ttl = "5s")
        public void one() {
        }

        @LeaderOnly(value = "reports", ttl = "10s")
        public void two() {
        }
    }

    @Test
    void methodsNamingOneElectionMustAgreeOnItsTtl() {
        assertThat(startFailure(new TwoTtls()))
                .anyMatch(m -> m.contains("names election 'reports' with ttl") && m.endsWith("give both the same ttl"));
    }

    public static class WrongListenerParameter {
        @CoordisListener(queue = "orders")
        public void on(String order, int extra) {
        }
    }

    @Test
    void aListenerTakesOneParameterOfAKnownType() {
        assertStartFails(new WrongListenerParameter(), "@CoordisListener on WrongListenerParameter.on(String, int) must "
                + "take exactly one parameter: String (the payload as UTF-8), byte[] (the payload) or Delivery (its id "
                + "and attempts)");
    }

    public static class EmptyQueue {
        @CoordisListener(queue = "${missing.queue:}")
        public void on(String order) {
        }
    }

    @Test
    void aListenerNamesItsQueue() {
        assertStartFails(new EmptyQueue(), "@CoordisListener on EmptyQueue.on(String) has an empty queue "
                + "(\"${missing.queue:}\"); name it, e.g. queue = \"reports:nightly\"");
    }
    public static class UnparsableLimit {
        @RateLimited(name = "api", limit = "ten per second")
        public void call() {
        }
    }

    @Test
    void aRateLimitMustParse() {
        assertStartFails(new UnparsableLimit(), "@RateLimited on UnparsableLimit.call() has limit = \"ten per second\", "
                + "which is not a rate: rate limit 'ten per second' is not of the form PERMITS/PERIOD, e.g. 10/1s, 100/1m "
                + "or 5/250ms; write it like \"10/1s\", \"100/1m\" or \"5/250ms\"");
    }

    public static class NegativeBurst {
        @RateLimited(name = "api", limit = "10/1s", burst = -1)
        public void call() {
        }
    }

    @Test
    void aBurstMustBePositive() {
        assertStartFails(new NegativeBurst(), "@RateLimited on NegativeBurst.call() has burst = -1; write a burst of at "
                + "least 1 (the most permits granted at once), or leave it out for the permit count (10)");
    }

    public static class EmptyLimit {
        @RateLimited(name = "api", limit = "${missing.limit:}")
        public void call() {
        }
    }

    @Test
    void aRateLimiterStatesItsLimit() {
        assertStartFails(new EmptyLimit(), "@RateLimited on EmptyLimit.call() has an empty limit (\"${missing.limit:}\"); "
                + "write one like limit = \"10/1s\" (permits per period)");
    }

    public static class BrokenKey {
        @RateLimited(name = "api", limit = "10/1s", key = "#userId +")
        public void call(String userId) {
        }
    }

    @Test
    void aBrokenKeyExpressionIsRefused() {
        assertThat(startFailure(new BrokenKey())).anyMatch(m -> m.startsWith("@RateLimited on BrokenKey.call(String) "
                + "has key = \"#userId +\", which is not a valid SpEL expression"));
    }

    public static class PrimitiveRateSkip {
        @RateLimited(name = "api", limit = "10/1s", whenLimited = WhenBusy.SKIP)
        public long count() {
            return 1;
        }
    }

    @Test
    void aRateLimitedMethodThatSkipsMustBeAbleToAnswerSkipped() {
        assertStartFails(new PrimitiveRateSkip(), "@RateLimited on PrimitiveRateSkip.count(): the method returns long, "
                + "which cannot say that it was skipped; return Long (null when skipped) or Optional (empty when skipped)");
    }

    public static class TwoLimits {
        @RateLimited(name = "api", limit = "10/1s")
        public void one() {
        }

        @RateLimited(name = "api", limit = "10/1s", burst = 20)
        public void two() {
        }
    }

    @Test
    void methodsNamingOneLimiterMustAgreeOnItsLimit() {
        assertThat(startFailure(new TwoLimits())).anyMatch(m -> m.contains("names rate limiter 'api' with limit")
                && m.endsWith("give both the same limit and burst (or name the limiters apart)"));
    }
}
