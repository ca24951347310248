package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads here and in a child JVM run one job through ShedLock on {@link CoordisLockProvider}, judged by the
 * test kit's {@link FencedResource}; and the referee catches a provider that is broken on purpose.
 */
class HammerIT {
    private static final Duration RUN = Duration.ofSeconds(4);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void threadsAndTwoJvmsNeverRunTheJobTwiceAtOnce() throws Exception {
        try (FencedResource resource = FencedResource.start();
             Coordis client = Coordis.builder().keyPrefix(Prefixed.prefix()).url(redis.uri()).connect()) {
            try (ChildJvm child = startChild(resource.address(), "child", 3)) {
                CompletableFuture<String> childRan = CompletableFuture.supplyAsync(() -> summary(child));
                CompletableFuture<Integer> localRan = CompletableFuture.supplyAsync(() -> {
                    try {
                        return Hammer.run("local", 4, RUN, resource.address(), CoordisLockProvider.of(client),
                                CoordisLockProvider::currentFencingToken);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertThat(resource.awaitGreetings(7, Duration.ofSeconds(60))).as("every worker connected").isTrue();
                resource.go();
                int local = localRan.get(RUN.toSeconds() + 60, TimeUnit.SECONDS);
                String childLine = childRan.get(60, TimeUnit.SECONDS);
                FencedResource.Report report = resource.report();
                assertThat(local).isPositive();
                assertThat(childLine).as("the child's summary").startsWith("RAN ");
                assertThat(Integer.parseInt(childLine.substring(4))).isPositive();
                assertThat(report.overlaps()).as(report.toString()).isZero();
                assertThat(report.fenceRegressions()).as(report.toString()).isZero();
                assertThat(report.violations()).as(report.toString()).isZero();
                assertThat(report.protocolErrors()).as(report.toString()).isZero();
                assertThat(report.totalEnters()).isGreaterThan(50);
            }
        }
    }

    /** The referee's negative control: a provider that checks and then sets (two commands) lets two in at once. */
    @Test
    void theRefereeCatchesAProviderThatChecksThenSets() throws Exception {
        try (FencedResource resource = FencedResource.start()) {
            CheckThenSet broken = new CheckThenSet(redis.server());
            CompletableFuture<Integer> ran = CompletableFuture.supplyAsync(() -> {
                try {
                    return Hammer.run("broken", 4, Duration.ofMillis(1500), resource.address(), broken, broken::fence);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(resource.awaitGreetings(4, Duration.ofSeconds(30))).isTrue();
            resource.go();
            assertThat(ran.get(60, TimeUnit.SECONDS)).isPositive();
            assertThat(resource.report().overlaps()).as(resource.report().toString()).isPositive();
        }
    }

    /** Broken on purpose: GET, then SET, with a pause between them; a fencing number from a counter. */
    private static final class CheckThenSet implements LockProvider {
        private final RedisServer server;
        private final ThreadLocal<Long> fence = new ThreadLocal<>();

        CheckThenSet(RedisServer server) {
            this.server = server;
        }

        long fence() {
            return fence.get();
        }

        @Override
        public Optional<SimpleLock> lock(LockConfiguration configuration) {
            String key = Prefixed.key("broken:" + configuration.getName());
            if (server.command("GET", key) != null) {
                return Optional.empty();
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            server.command("SET", key, "taken", "PX", Long.toString(configuration.getLockAtMostFor().toMillis()));
            fence.set((Long) server.command("INCR", Prefixed.key("broken:fence")));
            return Optional.of(() -> server.command("DEL", key));
        }
    }

    private static ChildJvm startChild(String resource, String id, int threads) {
        return ChildJvm.start(id, Hammer.class,
                List.of(redis.uri(), resource, id, Integer.toString(threads), Long.toString(RUN.toMillis())));
    }

    /** The child's summary line ("RAN n"), printed when its run is over. */
    private static String summary(ChildJvm child) {
        try {
            return child.awaitLine("RAN ", RUN.plusSeconds(60));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
