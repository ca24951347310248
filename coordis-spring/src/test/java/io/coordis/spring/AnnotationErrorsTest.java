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
}
