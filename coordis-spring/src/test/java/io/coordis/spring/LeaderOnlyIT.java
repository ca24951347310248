package io.coordis.spring;

import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link LeaderOnly} scheduled jobs of two application contexts on one Redis. */
class LeaderOnlyIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    static volatile FencedResource referee;

    /** Ticks every 20 ms in the leader only, entering the referee and writing with its term. */
    @EnableScheduling
    public static class LeaderJob {
        private final String instance;

        LeaderJob(@Value("${instance}") String instance) {
            this.instance = instance;
        }

        @Scheduled(fixedDelay = 20)
        @LeaderOnly(value = "reports", ttl = "5s")
        public void tick() throws InterruptedException {
            long term = CoordisContext.term();
            referee.enter(instance, term);
            referee.write(instance, term);
            Thread.sleep(2);
            referee.exit(instance, term);
        }
    }

    @Test
    void onlyTheLeaderRunsAndTheOtherContextTakesOverAtOnceWhenTheLeadersContextCloses() throws Exception {
        referee = FencedResource.recording();
        try (AnnotationConfigApplicationContext a = TestContexts.start("a", redis.uri(), LeaderJob.class);
             AnnotationConfigApplicationContext b = TestContexts.start("b", redis.uri(), LeaderJob.class)) {
            FencedResource.Event first = referee.await(0, "ENTER", null, Duration.ofSeconds(10)).orElseThrow();
            String leader = first.client();
            String follower = leader.equals("a") ? "b" : "a";
            Thread.sleep(500);
            assertThat(referee.events("ENTER")).as("only the leader ticks").allMatch(e -> e.client().equals(leader))
                    .hasSizeGreaterThan(5);

            int mark = referee.events().size();
            long closed = System.nanoTime();
            (leader.equals("a") ? a : b).close();
            FencedResource.Event taken = referee.await(mark, "ENTER", follower, Duration.ofSeconds(10)).orElseThrow();
            assertThat(Duration.ofNanos(taken.nanos() - closed))
                    .as("the leader resigned: no wait for its 5s TTL").isLessThan(Duration.ofSeconds(3));
            assertThat(taken.token()).as("a new term").isGreaterThan(first.token());
        }
        // A leader enters once per tick with the same term, so the referee's "regressions" (an ENTER whose token is
        // not above every earlier one) are expected; what must not happen is two ticks at once, two leaders writing
        // with one term, or a write with a term lower than one already written.
        FencedResource.Report report = referee.report();
        assertThat(report.overlaps()).as("%s", report.notes()).isZero();
        assertThat(report.violations()).as("%s", report.notes()).isZero();
        assertThat(report.staleRejections()).isZero();
        referee.close();
    }

    @Test
    void outsideALeaderOnlyMethodThereIsNoTerm() {
        assertThat(CoordisContext.currentLeadership()).isEmpty();
        assertThatThrownBy(CoordisContext::term).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no @LeaderOnly method is running on this thread");
    }
}
