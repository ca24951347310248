package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.spring.boot.autoconfigure.CoordisAutoConfiguration;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code coordis.lock.fair=true} in a Spring Boot application makes {@link Locked} locks fair: a call waiting for a
 * held lock stands in the lock's line in Redis ({@code {name}:line}); without the property it does not.
 */
class FairLockedIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final String LINE = Prefixed.derived("fair:job", "line");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, CoordisAutoConfiguration.class,
                    CoordisAnnotationsAutoConfiguration.class))
            .withPropertyValues("coordis.urls=" + redis.uri(), "coordis.key-prefix=" + Prefixed.prefix())
            .withBean(Job.class);

    public static class Job {
        @Locked(name = "fair:job", whenBusy = WhenBusy.WAIT, maxWait = "60s")
        public String waitsLong() {
            return "ran";
        }

        @Locked(name = "fair:job", whenBusy = WhenBusy.WAIT, maxWait = "2s")
        public String waitsBriefly() {
            return "ran";
        }
    }

    private static boolean inLine(RespClient redis) {
        return Long.valueOf(1).equals(redis.command("EXISTS", LINE));
    }

    /** Another client, as another instance of the application would hold the lock. */
    private static Coordis other() {
        return Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix()).connect();
    }

    @Test
    @Timeout(90)
    void withTheFairPropertyAWaitingCallStandsInTheLine() {
        runner.withPropertyValues("coordis.lock.fair=true").run(context -> {
            try (Coordis other = other(); RespClient raw = redis.server().client()) {
                Lease held = other.lock("fair:job").tryAcquire().orElseThrow();
                CompletableFuture<String> waiting = CompletableFuture.supplyAsync(context.getBean(Job.class)::waitsLong);
                await().atMost(Duration.ofSeconds(30)).until(() -> inLine(raw));
                assertThat(waiting).isNotDone();
                held.release();
                assertThat(waiting.get(30, TimeUnit.SECONDS)).isEqualTo("ran");
                assertThat(inLine(raw)).as("the place left the line with the grant").isFalse();
            }
        });
    }

    /** The check above, on a plain lock: a referee that saw a line here would prove nothing. */
    @Test
    @Timeout(90)
    void withoutItAWaitingCallLeavesNoLine() {
        runner.run(context -> {
            try (Coordis other = other(); RespClient raw = redis.server().client();
                 Lease held = other.lock("fair:job").tryAcquire().orElseThrow()) {
                assertThat(held.fencingToken()).isPositive();
                CompletableFuture<String> waiting = CompletableFuture.supplyAsync(context.getBean(Job.class)::waitsBriefly);
                boolean seen = false;
                while (!waiting.isDone()) {
                    seen |= inLine(raw);
                    Thread.sleep(5); // polling pace only: the call's own 2 s wait bounds the watch
                }
                assertThat(seen).as("a line while a plain lock was waited for").isFalse();
                assertThat(waiting).failsWithin(Duration.ZERO).withThrowableThat()
                        .withCauseInstanceOf(LockBusyException.class);
            }
        });
    }
}
