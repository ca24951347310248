package io.coordis.spring.integration;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.SmartLifecycleRoleController;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Role-controlled endpoints of applications against one Redis follow the Coordis election: one application runs
 * them, and they move when its context closes, when its process is killed, when it yields, and stop when its
 * leadership is deleted. The referee sees every candidate enter when granted and leave when revoked.
 */
class LeaderInitiatorIT {
    /** Long against every hand-over these tests expect, so none of them can be the TTL running out. */
    private static final long LONG_TTL = 10_000;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void endpointsMoveToTheOtherApplicationWhenTheLeadersContextCloses(RedisServer server) {
        try (FencedResource referee = FencedResource.start()) {
            ConfigurableApplicationContext a = app(server, referee, "a", LONG_TTL);
            try (ConfigurableApplicationContext b = app(server, referee, "b", LONG_TTL)) {
                await().atMost(Duration.ofSeconds(5)).until(() -> endpointsRunning(a));
                assertThat(endpointsStopped(b)).isTrue();
                long closed = System.nanoTime();
                a.close();
                await().atMost(Duration.ofSeconds(3)).until(() -> endpointsRunning(b));
                assertThat(Duration.ofNanos(System.nanoTime() - closed)).as("a resignation, not the TTL")
                        .isLessThan(Duration.ofMillis(LONG_TTL / 2));
                assertThat(initiator(b).getContext().term()).isGreaterThan(0);
            } finally {
                a.close();
            }
            FencedResource.Report report = referee.report();
            assertThat(report.overlaps()).as("two leaders at once: %s", report.notes()).isZero();
            assertThat(report.fenceRegressions()).isZero();
            assertThat(report.violations()).isZero();
            assertThat(report.totalEnters()).isEqualTo(2);
        }
    }

    @Test
    void yieldHandsTheEndpointsOverAtOnce(RedisServer server) throws Exception {
        try (FencedResource referee = FencedResource.start();
             ConfigurableApplicationContext a = app(server, referee, "a", LONG_TTL);
             ConfigurableApplicationContext b = app(server, referee, "b", LONG_TTL)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> endpointsRunning(a) || endpointsRunning(b));
            ConfigurableApplicationContext leader = endpointsRunning(a) ? a : b;
            ConfigurableApplicationContext other = leader == a ? b : a;
            LeadershipContext term = initiator(leader).getContext();
            assertThat(term.isLeader()).isTrue();
            term.yield();
            await().atMost(Duration.ofSeconds(3)).until(() -> endpointsRunning(other));
            assertThat(endpointsStopped(leader)).isTrue();
            assertThat(term.isLeader()).isFalse();
            assertThat(initiator(other).getContext().term()).isGreaterThan(term.term());
            Thread.sleep(300);
            assertThat(endpointsRunning(other)).as("the yielder does not take it back").isTrue();
            FencedResource.Report report = referee.report();
            assertThat(report.overlaps()).as("two leaders at once: %s", report.notes()).isZero();
            assertThat(report.fenceRegressions()).isZero();
        }
    }

    @Test
    void endpointsMoveWhenTheLeadersProcessIsKilled(RedisServer server) throws Exception {
        long ttl = 1_000;
        try (FencedResource referee = FencedResource.recording()) {
            ChildJvm child = ChildJvm.start("role-child", RoleChild.class,
                    List.of(server.uri(), referee.address(), "child", Long.toString(ttl)));
            try {
                String granted = child.awaitLine("GRANTED child", Duration.ofSeconds(30));
                long childTerm = Long.parseLong(granted.substring(granted.lastIndexOf(' ') + 1));
                try (ConfigurableApplicationContext b = app(server, referee, "b", ttl)) {
                    Thread.sleep(200);
                    assertThat(endpointsStopped(b)).as("the child leads").isTrue();
                    assertThat(referee.await(0, "WRITE", "child", Duration.ofSeconds(5))).as("its endpoint runs")
                            .isPresent();
                    long killed = System.nanoTime();
                    child.close(); // SIGKILL: the child resigns nothing, its lease runs out
                    await().atMost(Duration.ofSeconds(5)).until(() -> endpointsRunning(b));
                    assertThat(Duration.ofNanos(System.nanoTime() - killed)).as("once the child's lease ran out")
                            .isLessThan(Duration.ofMillis(ttl * 4));
                    assertThat(initiator(b).getContext().term()).isGreaterThan(childTerm);
                    assertThat(referee.await(0, "WRITE", "b", Duration.ofSeconds(5))).isPresent();
                }
            } finally {
                child.close();
            }
            FencedResource.Report report = referee.report();
            assertThat(report.fenceRegressions()).isZero();
            assertThat(report.violations()).isZero();
        }
    }

    @Test
    void aLeadershipDeletedUnderTheLeaderIsRevokedWithinItsValidity(RedisServer server) throws Exception {
        long ttl = 900;
        try (FencedResource referee = FencedResource.recording();
             ConfigurableApplicationContext a = app(server, referee, "a", ttl)) {
            await().atMost(Duration.ofSeconds(5)).until(() -> endpointsRunning(a));
            int seen = referee.events().size();
            long deleted = System.nanoTime();
            server.command("DEL", Prefixed.key(RoleApp.ROLE));
            FencedResource.Event exit = referee.await(seen, "EXIT", "a", Duration.ofSeconds(5)).orElseThrow();
            assertThat(Duration.ofNanos(exit.nanos() - deleted)).as("revoked without waiting for a poll or the TTL")
                    .isLessThan(Duration.ofMillis(ttl));
            await().atMost(Duration.ofSeconds(5)).until(() -> endpointsRunning(a));
            assertThat(referee.report().fenceRegressions()).isZero();
        }
    }

    private static ConfigurableApplicationContext app(RedisServer server, FencedResource referee, String id,
                                                      long ttl) {
        return Contexts.start(RoleApp.class, Map.of("redis.url", server.uri(), "referee", referee.address(),
                "app", id, "ttl", Long.toString(ttl)));
    }

    private static CoordisLeaderInitiator initiator(ConfigurableApplicationContext ctx) {
        return ctx.getBean(CoordisLeaderInitiator.class);
    }

    private static boolean endpointsRunning(ConfigurableApplicationContext ctx) {
        return ctx.getBean(SmartLifecycleRoleController.class).allEndpointsRunning(RoleApp.ROLE);
    }

    private static boolean endpointsStopped(ConfigurableApplicationContext ctx) {
        return ctx.getBean(SmartLifecycleRoleController.class).noEndpointsRunning(RoleApp.ROLE);
    }
}
