package io.coordis.election;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Redis is killed (kill -9) and restarted without persistence while an election runs: the term counter is lost
 * and starts again from the server's clock, so terms still rise. Where that is not enough (a counter that had run
 * ahead of a clock that went back), candidates that saw higher terms notice, say so loudly, and never reuse a term;
 * observers mark a leader whose term regressed.
 */
class TermRegressionIT {
    private static final Duration TTL = Duration.ofMillis(900);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aTermNotAboveTheHighestSeenIsRefusedReportedAndVisibleToObservers() throws Exception {
        try (Coordis a = TestClients.connect(redis.uri()); Coordis watcher = TestClients.connect(redis.uri())) {
            LeaderElection ea = a.election("el:regress", ElectionOptions.defaults().withCandidateId("alpha").withTtl(TTL));
            List<String> regressions = new CopyOnWriteArrayList<>();
            BlockingQueue<Leadership> revoked = new LinkedBlockingQueue<>();
            ea.addListener(new ElectionListener() {
                @Override
                public void revoked(Leadership leadership, String reason) {
                    revoked.add(leadership);
                }

                @Override
                public void termRegressed(long highestSeen, long got) {
                    regressions.add(highestSeen + "->" + got);
                }
            });
            BlockingQueue<LeaderEvent> events = new LinkedBlockingQueue<>();
            LeaderElection observer = watcher.election("el:regress");
            String counter = Prefixed.derived("el:regress", "term");
            try (AutoCloseable watch = observer.observe(events::add)) {
                // a counter far ahead of the server's clock, as if that clock had gone back since it was raised
                long ahead = 8_000_000_000_000_000L;
                redis.server().command("SET", counter, Long.toString(ahead));
                Leadership l = null;
                for (int i = 0; i < 3; i++) {
                    l = ea.campaign(Duration.ofSeconds(2)).orElseThrow();
                    if (i < 2) {
                        l.resign();
                    }
                }
                long before = l.term();
                assertThat(before).isEqualTo(ahead + 3);
                awaitEvent(events, "leader=alpha term=" + before);
                assertThat(revoked.poll(5, TimeUnit.SECONDS)).isNotNull();
                assertThat(revoked.poll(5, TimeUnit.SECONDS)).isNotNull();

                // kill -9, no persistence: the counter is gone and starts again from the clock, below those terms
                redis.server().restart(Duration.ZERO);
                assertThat(revoked.poll(TTL.toMillis() + 3000, TimeUnit.MILLISECONDS)).as("the leader learns it lost")
                        .isSameAs(l);

                Leadership again = ea.campaign(Duration.ofSeconds(5)).orElseThrow();
                awaitSize(regressions, 1); // listeners are called on the client's callback executor
                assertThat(regressions).as("the regressed term was reported").hasSize(1);
                String[] reported = regressions.get(0).split("->");
                assertThat(Long.parseLong(reported[0])).isEqualTo(before);
                assertThat(Long.parseLong(reported[1])).as("a term from the clock").isLessThan(before);
                assertThat(again.term()).as("and refused: the counter was raised past it").isEqualTo(before + 1);
                assertThat(redis.server().command("GET", counter)).isEqualTo(Long.toString(before + 1));
                awaitEvent(events, "leader=alpha term=" + (before + 1));
                again.resign();

                // A fresh candidate never saw the old terms: it gets a lower term, and the observer, who did, flags it.
                redis.server().command("DEL", counter);
                try (Coordis fresh = TestClients.connect(redis.uri())) {
                    Leadership low = fresh.election("el:regress", ElectionOptions.defaults().withCandidateId("newcomer"))
                            .campaign(Duration.ofSeconds(2)).orElseThrow();
                    assertThat(low.term()).isLessThan(before);
                    LeaderEvent flagged = awaitEvent(events, "leader=newcomer term=" + low.term());
                    assertThat(flagged.termRegressed()).isTrue();
                    assertThat(flagged.describe()).endsWith("term-regressed");
                    assertThat(ea.leader().orElseThrow().term()).hasValue(low.term());
                    String expected = (before + 1) + "->" + low.term();
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (!regressions.contains(expected) && System.nanoTime() < until) {
                        Thread.sleep(10);
                    }
                    assertThat(regressions).as("the candidate that saw the higher term reports the newcomer's too")
                            .contains(expected);
                    low.resign();
                }
            }
        }
    }

    /** The counter lost with a restart without persistence starts again from the clock: terms still rise. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void termsKeepRisingAcrossARestartThatLosesTheCounter() throws Exception {
        try (Coordis a = TestClients.connect(redis.uri())) {
            List<String> regressions = new CopyOnWriteArrayList<>();
            LeaderElection e = a.election("el:restart", ElectionOptions.defaults().withCandidateId("alpha").withTtl(TTL));
            e.addListener(new ElectionListener() {
                @Override
                public void termRegressed(long highestSeen, long got) {
                    regressions.add(highestSeen + "->" + got);
                }
            });
            Leadership first = e.campaign(Duration.ofSeconds(2)).orElseThrow();
            first.resign();
            redis.server().restart(Duration.ZERO); // kill -9, no persistence: every key is gone
            assertThat(redis.server().command("EXISTS", Prefixed.derived("el:restart", "term"))).isEqualTo(0L);
            Leadership second = e.campaign(Duration.ofSeconds(10)).orElseThrow();
            assertThat(second.term()).isGreaterThan(first.term());
            assertThat(regressions).isEmpty();
            second.resign();
        }
    }

    private static void awaitSize(List<String> list, int size) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (list.size() < size && System.nanoTime() < until) {
            Thread.sleep(10);
        }
    }

    private static LeaderEvent awaitEvent(BlockingQueue<LeaderEvent> events, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> seen = new CopyOnWriteArrayList<>();
        while (System.nanoTime() < deadline) {
            LeaderEvent e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e != null) {
                seen.add(e.describe());
                if (e.describe().startsWith(prefix)) {
                    return e;
                }
            }
        }
        throw new AssertionError("no event '" + prefix + "' within 10 s; saw " + seen);
    }
}
