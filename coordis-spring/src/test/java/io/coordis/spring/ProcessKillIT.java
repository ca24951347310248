package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A process running {@link LeaderOnly} and {@link CoordisListener} methods is killed with SIGKILL (no resignation, no
 * consumer close): the other instance takes over the leadership within the election's TTL, with a higher term, and
 * every message is processed, including those the dead process held. One child JVM serves both, since Spring
 * applications start slowly.
 */
class ProcessKillIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void leadershipAndMessagesMoveToTheSurvivorWhenAProcessIsKilled() throws Exception {
        List<String> ids = IntStream.range(0, 80).mapToObj(i -> "job-" + i).toList();
        try (FencedResource referee = FencedResource.recording();
             ChildJvm child = ChildJvm.start("spring-app", KillScenario.class, List.of("-Xmx192m"),
                     List.of(redis.uri(), referee.address()))) {
            child.awaitLine("STARTED", Duration.ofSeconds(60));
            FencedResource.Event childLeads = referee.await(0, "ENTER", "child", Duration.ofSeconds(10)).orElseThrow();

            System.setProperty("referee", referee.address());
            try (AnnotationConfigApplicationContext survivor = TestContexts.start("survivor", redis.uri(),
                    KillScenario.class)) {
                ReliableQueue queue = survivor.getBean(Coordis.class).reliableQueue(KillScenario.QUEUE);
                queue.pushAll(ids.stream().map(String::getBytes).toList());
                child.awaitLine("DONE ", Duration.ofSeconds(10));
                assertThat(referee.events("ENTER")).as("the child leads; the survivor waits")
                        .allMatch(e -> e.client().equals("child"));

                int mark = referee.events().size();
                long killed = System.nanoTime();
                child.close(); // SIGKILL: no shutdown hook, no resignation, no consumer close
                Set<String> inHand = new HashSet<>();
                for (String line : child.lines()) {
                    if (line.startsWith("TAKEN ")) {
                        inHand.add(line.substring(6));
                    } else if (line.startsWith("DONE ")) {
                        inHand.remove(line.substring(5));
                    }
                }

                FencedResource.Event taken = referee.await(mark, "ENTER", "survivor", Duration.ofSeconds(10)).orElseThrow();
                assertThat(taken.token()).as("a new term").isGreaterThan(childLeads.token());
                assertThat(Duration.ofNanos(taken.nanos() - killed)).as("within the 2s TTL and a campaign")
                        .isLessThan(Duration.ofSeconds(5));

                await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    Set<String> done = new HashSet<>(KillScenario.processed);
                    child.lines().stream().filter(l -> l.startsWith("DONE ")).map(l -> l.substring(5)).forEach(done::add);
                    assertThat(done).as("every message was processed, in one process or the other")
                            .containsExactlyInAnyOrderElementsOf(ids);
                });
                assertThat(KillScenario.processed).as("the messages the child held when it died (%s) came back", inHand)
                        .containsAll(inHand);
                await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                    QueueStats stats = queue.stats();
                    assertThat(stats.depth()).isZero();
                    assertThat(stats.inFlight()).isZero();
                    assertThat(stats.deadLetters()).isZero();
                });
            }
            FencedResource.Report report = referee.report();
            assertThat(report.violations()).as("%s", report.notes()).isZero();
            assertThat(report.staleRejections()).as("no write after a newer term's").isZero();
            assertThat(referee.overlapsAmong(c -> !c.equals("child")))
                    .as("the killed child never exits; nobody else overlapped").isZero();
        } finally {
            System.clearProperty("referee");
        }
    }
}
