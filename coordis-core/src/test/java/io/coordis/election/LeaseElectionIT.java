package io.coordis.election;

import io.coordis.Coordis;
import io.coordis.ManualTicker;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The lease election against a real redis-server, in one JVM with several clients. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LeaseElectionIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis a;
    private Coordis b;

    @BeforeEach
    void connect() {
        a = TestClients.connect(redis.uri());
        b = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static ElectionOptions options(String id, Duration ttl) {
        return ElectionOptions.defaults().withCandidateId(id).withTtl(ttl);
    }

    @Test
    void oneLeaderAtATimeWithTermsThatGrowOnEveryNewLeadership() throws Exception {
        LeaderElection ea = a.election("el:basic", options("alpha", Duration.ofSeconds(5)));
        LeaderElection eb = b.election("el:basic", options("beta", Duration.ofSeconds(5)));
        assertThat(ea.leader()).isEmpty();

        Leadership first = ea.campaign(Duration.ofSeconds(1)).orElseThrow();
        assertThat(first.isHeld()).isTrue();
        assertThat(ea.campaign(Duration.ZERO)).as("campaigning again while leading answers the same term")
                .containsSame(first);
        Leader seen = eb.leader().orElseThrow();
        assertThat(seen.id()).isEqualTo("alpha");
        assertThat(seen.term()).hasValue(first.term());
        assertThat(seen.ttl().orElseThrow()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(redis.server().command("GET", Prefixed.key("el:basic"))).as("the key is the name and holds the id")
                .isEqualTo("alpha");

        assertThat(eb.campaign(Duration.ofMillis(300))).isEmpty();
        assertThat(eb.highestTermSeen()).as("a busy answer tells the term").isEqualTo(first.term());
        assertThat(eb.isLeader()).isFalse();

        assertThat(first.resign()).isTrue();
        assertThat(first.isHeld()).isFalse();
        assertThat(first.resign()).as("resigning twice").isFalse();
        assertThat(first.lost().toCompletableFuture()).as("a resignation is no loss").isNotDone();
        Leadership second = eb.campaign(Duration.ofSeconds(1)).orElseThrow();
        assertThat(second.term()).isGreaterThan(first.term());
        second.resign();
        Leadership third = ea.campaign(Duration.ofSeconds(1)).orElseThrow();
        assertThat(third.term()).isGreaterThan(second.term());
        assertThat(ea.leader().orElseThrow().term()).hasValue(third.term());
    }

    @Test
    void theIncumbentIsReElectedWithoutAGapWellPastItsTtl() throws Exception {
        // 1.5 s: each attempt may wait TTL/3 for Redis; 600 ms (200 ms per reply) timed out on a loaded machine
        Duration ttl = Duration.ofMillis(1500);
        LeaderElection ea = a.election("el:incumbent", options("alpha", ttl));
        LeaderElection eb = b.election("el:incumbent", options("beta", ttl));
        Leadership mine = ea.campaign(Duration.ofSeconds(1)).orElseThrow();
        long until = System.nanoTime() + ttl.multipliedBy(5).toNanos();
        while (System.nanoTime() < until) {
            assertThat(eb.campaign(Duration.ofMillis(50))).isEmpty();
            Leader l = eb.leader().orElseThrow(() -> new AssertionError("no leader while the incumbent renews"));
            assertThat(l.id()).isEqualTo("alpha");
            assertThat(l.term()).hasValue(mine.term());
            assertThat(mine.isHeld()).isTrue();
        }
        assertThat(mine.lost().toCompletableFuture()).isNotDone();
    }

    @Test
    void resignHandsOverToAWaitingCandidateInWellUnderTheTtl() throws Exception {
        Duration ttl = Duration.ofSeconds(10);
        LeaderElection ea = a.election("el:handover", options("alpha", ttl));
        LeaderElection eb = b.election("el:handover", options("beta", ttl));
        Leadership mine = ea.campaign(Duration.ofSeconds(1)).orElseThrow();
        CompletableFuture<Leadership> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return eb.campaign(Duration.ofSeconds(30)).orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(500); // the waiting candidate has tried, subscribed and sleeps on the 10 s TTL
        assertThat(waiting).isNotDone();
        long resigned = System.nanoTime();
        assertThat(ea.resign()).isTrue();
        Leadership theirs = waiting.get(5, TimeUnit.SECONDS);
        Duration handover = Duration.ofNanos(System.nanoTime() - resigned);
        System.out.printf("resign handover took %d ms (TTL %d ms)%n", handover.toMillis(), ttl.toMillis());
        assertThat(handover).as("hand-over after resign").isLessThan(ttl.dividedBy(10));
        assertThat(theirs.term()).isGreaterThan(mine.term());
    }

    @Test
    void closingALeadershipResignsItSoTryWithResourcesEndsTheTerm() throws Exception {
        LeaderElection ea = a.election("el:closed", options("alpha", Duration.ofSeconds(10)));
        LeaderElection eb = b.election("el:closed", options("beta", Duration.ofSeconds(10)));
        Leadership term;
        try (Leadership mine = ea.campaign(Duration.ofSeconds(1)).orElseThrow()) {
            term = mine;
            assertThat(mine.isHeld()).isTrue();
            assertThat(eb.campaign(Duration.ZERO)).as("taken while the block runs").isEmpty();
        }
        assertThat(term.isHeld()).as("after the block").isFalse();
        assertThat(term.resign()).as("already resigned by close").isFalse();
        Leadership theirs = eb.campaign(Duration.ZERO).orElseThrow();
        assertThat(theirs.term()).isGreaterThan(term.term());
        theirs.resign();
    }

    @Test
    void aCandidateWhoseTermWasReWonUnderTheSameIdCannotRenewIt() throws Exception {
        Duration ttl = Duration.ofMillis(900);
        // Two processes with the same id (an operator restarted one with the same --id).
        LeaderElection old = a.election("el:same-id", options("web-1", ttl));
        LeaderElection fresh = b.election("el:same-id", options("web-1", ttl));
        List<String> revoked = new CopyOnWriteArrayList<>();
        old.addListener(new ElectionListener() {
            @Override
            public void revoked(Leadership leadership, String reason) {
                revoked.add(leadership.term() + ": " + reason);
            }
        });
        Leadership stale = old.campaign(Duration.ofSeconds(1)).orElseThrow();
        // The key is lost (as if it had expired) and the other process wins it, under the same id.
        redis.server().command("DEL", Prefixed.key("el:same-id"));
        Leadership current = fresh.campaign(Duration.ofSeconds(1)).orElseThrow();
        assertThat(current.term()).isGreaterThan(stale.term());

        CompletableFuture<Leadership> lost = stale.lost().toCompletableFuture();
        assertThat(lost.get(ttl.toMillis() * 2, TimeUnit.MILLISECONDS)).isSameAs(stale);
        assertThat(stale.isHeld()).isFalse();
        // listeners are called on the callback executor, not necessarily before lost() completes
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(revoked).singleElement().asString()
                .startsWith(stale.term() + ": Redis no longer holds this term"));
        assertThat(stale.resign()).isFalse();
        Thread.sleep(ttl.toMillis() * 2);
        assertThat(current.isHeld()).as("the new term keeps renewing").isTrue();
        assertThat(fresh.leader().orElseThrow().term()).hasValue(current.term());
    }

    @Test
    void observersSeeElectionsResignationsAndExpiriesWithTheirTerms() throws Exception {
        Duration ttl = Duration.ofMillis(900);
        BlockingQueue<LeaderEvent> events = new LinkedBlockingQueue<>();
        try (Coordis watcher = TestClients.connect(redis.uri());
             AutoCloseable observation = watcher.election("el:observe").observe(events::add)) {
            assertThat(poll(events).leader()).as("first event: nobody leads").isEmpty();
            LeaderElection ea = a.election("el:observe", options("alpha", ttl));
            Leadership first = ea.campaign(Duration.ofSeconds(1)).orElseThrow();
            LeaderEvent e1 = poll(events);
            assertThat(e1.describe()).isEqualTo("leader=alpha term=" + first.term());
            first.resign();
            assertThat(poll(events).leader()).isEmpty();

            LeaderElection eb = b.election("el:observe", options("beta", ttl));
            Leadership second = eb.campaign(Duration.ofSeconds(1)).orElseThrow();
            assertThat(poll(events).describe()).isEqualTo("leader=beta term=" + second.term());
            // beta's process stops renewing without resigning: the observer sees the expiry by the TTL timer.
            long stopped = System.nanoTime();
            b.close();
            LeaderEvent gone = poll(events);
            assertThat(gone.leader()).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(ttl.plusSeconds(1));
            assertThat(events.poll(ttl.toMillis(), TimeUnit.MILLISECONDS)).as("nothing else changed").isNull();
            b = TestClients.connect(redis.uri());
        }
    }

    @Test
    void whileLeaderRunsWorkAndInterruptsItWhenTheLeadershipIsLost() throws Exception {
        Duration ttl = Duration.ofMillis(900);
        LeaderElection ea = a.election("el:scoped", options("alpha", ttl));
        assertThat(ea.whileLeader(Duration.ofSeconds(1), l -> "ran with term " + l.term()))
                .hasValueSatisfying(v -> assertThat(v).startsWith("ran with term "));
        assertThat(ea.leader()).as("resigned when the work ended").isEmpty();

        CompletableFuture<Void> takeOver = CompletableFuture.runAsync(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            redis.server().command("SET", Prefixed.key("el:scoped"), "intruder");
        });
        long start = System.nanoTime();
        assertThatThrownBy(() -> ea.whileLeader(Duration.ofSeconds(1), l -> {
            Thread.sleep(30_000);
            return "never";
        })).isInstanceOf(LeadershipLostException.class).hasMessageContaining("ended while the work was running");
        takeOver.get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ttl.multipliedBy(2));
        assertThat(Thread.currentThread().isInterrupted()).as("the helper's own interrupt is cleared").isFalse();
        assertThat(redis.server().command("GET", Prefixed.key("el:scoped"))).as("the other writer's key is untouched")
                .isEqualTo("intruder");
    }

    @Test
    void aLeaderKnowsLocallyThatItsTermIsOverOnceItsDeadlinePassesEvenIfRedisStillHoldsIt() throws Exception {
        ManualTicker ticker = new ManualTicker();
        try (Coordis manual = TestClients.builder().url(redis.uri()).ticker(ticker).connect()) {
            Duration ttl = Duration.ofSeconds(30);
            LeaderElection e = manual.election("el:deadline", options("alpha", ttl));
            BlockingQueue<String> revoked = new LinkedBlockingQueue<>();
            e.addListener(new ElectionListener() {
                @Override
                public void revoked(Leadership leadership, String reason) {
                    revoked.add(reason);
                }
            });
            Leadership l = e.campaign(Duration.ofSeconds(1)).orElseThrow();
            ticker.advance(ttl.minus(ttl.dividedBy(50)));
            assertThat(l.isHeld()).as("before TTL - drift").isTrue();
            ticker.advance(ttl.dividedBy(50));
            // As after a pause: no renewal ran in between, and the first check already says "over".
            assertThat(l.isHeld()).isFalse();
            assertThat(e.isLeader()).isFalse();
            assertThat(revoked.poll(5, TimeUnit.SECONDS)).contains("deadline passed");
            // The ended term is cleared at Redis in the background, so others need not wait for the TTL.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (redis.server().command("GET", Prefixed.key("el:deadline")) != null && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(redis.server().command("GET", Prefixed.key("el:deadline"))).isNull();
        }
    }

    @Test
    void aForeignKeyOfAnotherTypeIsReportedNotOverwritten() {
        redis.server().command("LPUSH", Prefixed.key("el:wrong"), "x");
        LeaderElection ea = a.election("el:wrong", options("alpha", Duration.ofSeconds(2)));
        assertThatThrownBy(() -> ea.campaign(Duration.ofMillis(100)))
                .isInstanceOf(io.coordis.WrongTypeException.class).hasMessageContaining("el:wrong");
        assertThatThrownBy(ea::leader).isInstanceOf(io.coordis.WrongTypeException.class);
        assertThat(redis.server().command("LLEN", Prefixed.key("el:wrong"))).isEqualTo(1L);
    }

    @Test
    void aRedlockClientRefusesElections() {
        try (Coordis several = TestClients.builder().urls(List.of(redis.uri(), redis.uri() + "/1", redis.uri() + "/2"))
                .connect()) {
            assertThatThrownBy(() -> several.election("el:x")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("one Redis node");
        }
    }

    private static LeaderEvent poll(BlockingQueue<LeaderEvent> events) throws InterruptedException {
        LeaderEvent e = events.poll(5, TimeUnit.SECONDS);
        assertThat(e).as("an observer event within 5 s").isNotNull();
        return e;
    }

}
