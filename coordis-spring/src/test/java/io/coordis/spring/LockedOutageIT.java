package io.coordis.spring;

import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Locked} method that may wait is not failed by a Redis restart: called while Redis is down, it runs once
 * Redis is back within its {@code maxWait}, in a real application context.
 */
class LockedOutageIT {
    /** The method under test, called through the Spring proxy. */
    public static class Job {
        @Locked(name = "outage:job", maxWait = "30s", whenBusy = WhenBusy.WAIT)
        public long run() {
            return CoordisContext.fencingToken();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aLockedMethodThatMayWaitRunsOnceRedisIsBack() throws Exception {
        try (RedisServer redis = RedisServer.builder().appendOnly(true).start();
             AnnotationConfigApplicationContext context = TestContexts.start("a", redis.uri(), Job.class)) {
            Job job = context.getBean(Job.class);
            assertThat(job.run()).as("fencing number before the restart").isPositive();
            redis.kill();
            CompletableFuture<Long> ran = CompletableFuture.supplyAsync(job::run);
            redis.restart(Duration.ofMillis(1500));
            assertThat(ran.get(60, TimeUnit.SECONDS)).as("fencing number after the restart").isPositive();
        }
    }
}
