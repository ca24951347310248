package io.coordis.lock;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The blocking semaphore on virtual threads (Java 21+; skipped on older JVMs): 300 virtual threads waiting in
 * {@code acquire()} on one carrier thread are all served, so a wait pins no carrier (a pinned waiter would keep the
 * holders from running, and nobody would be served).
 */
class SemaphoreVirtualThreadsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(120)
    void waitersOnOneCarrierThreadAreAllServed() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21+");
        try (ChildJvm child = ChildJvm.start("virtual-waiters", VirtualWaiters.class,
                List.of("-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1"),
                List.of(redis.uri(), "vt:pool", "300"))) {
            assertThat(child.awaitLine(l -> l.startsWith("DONE") || l.startsWith("STUCK"), Duration.ofSeconds(90)))
                    .as(child.describe()).contains("DONE 300");
        }
    }
}
