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
 * Redis is killed (kill -9) and restarted without persistence while an election runs: the term counter
 * starts again from nothing. Candidates that saw higher terms notice, say so loudly, and never reuse a
 * term; observers mark a leader whose term regressed.
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
            try (AutoCloseable watch = observer.observe(events::add)) {
                Leadership l = null;
                for (int i = 0; i < 3; i++) {
                    l = ea.campaign(Duration.ofSeconds(2)).orElseThrow();
                    if (i < 2) {
                        l.resign();
                    }
                }
                long before = l.term();
                assertThat(before).isEqualTo(3);
                awaitEvent(events, "leader=alpha term=3");
                assertThat(revoked.poll(5, TimeUnit.SECONDS)).isNotNull();
                assertThat(revoked.poll(5, TimeUnit.SECONDS)).isNotNull();

                redis.server().restart(Duration.ZERO); // kill -9, no persistence: every key is gone
                assertThat(revoked.poll(TTL.toMillis() + 3000, TimeUnit.MILLISECONDS)).as("the leader learns it lost")
                        .isSameAs(l);

                Leadership again = ea.campaign(Duration.ofSeconds(5)).orElseThrow();
                awaitSize(regressions, 1); // listeners are called on the client's callback executor
                assertThat(regressions).as("the regressed term 1 was reported").containsExactly(before + "->1");
                assertThat(again.term()).as("and refused: the counter was raised past it").isEqualTo(before + 1);
                assertThat(redis.server().command("GET", Prefixed.derived("el:regress", "term")))
                        .isEqualTo(Long.toString(before + 1));
                awaitEvent(events, "leader=alpha term=" + (before + 1));
                again.resign();

                // A fresh candidate never saw the old terms: it gets a low term, and the observer, who did, flags it.
                redis.server().command("SET", Prefixed.derived("el:regress", "term"), "0");
                try (Coordis fresh = TestClients.connect(redis.uri())) {
                    Leadership low = fresh.election("el:regress", ElectionOptions.defaults().withCandidateId("newcomer"))
                            .campaign(Duration.ofSeconds(2)).orElseThrow();
                    assertThat(low.term()).isEqualTo(1);
                    LeaderEvent flagged = awaitEvent(events, "leader=newcomer term=1");
                    assertThat(flagged.termRegressed()).isTrue();
                    assertThat(flagged.describe()).endsWith("term-regressed");
                    assertThat(ea.leader().orElseThrow().term()).hasValue(1);
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (!regressions.contains((before + 1) + "->1") && System.nanoTime() < until) {
                        Thread.sleep(10);
                    }
                    assertThat(regressions).as("the candidate that saw term 4 reports the newcomer's term 1 too")
                            .contains((before + 1) + "->1");
                    low.resign();
                }
            }
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
