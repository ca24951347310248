package io.coordis.election;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an {@link ElectionListener} is told: {@code elected} once per leadership won, with that leadership's term and
 * candidate, then {@code revoked} when it ends; a candidate that does not win is told nothing. Listeners are called
 * one at a time and in order, so a second {@code elected} for one leadership would show before its
 * {@code revoked}: waiting for the {@code revoked} and finding one {@code elected} before it proves "once".
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ElectionListenerIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis a;
    private Coordis b;

    /** Every call a listener got, in order, as text; and the leaderships {@code elected} was given. */
    private static final class Told implements ElectionListener {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<Leadership> elected = new CopyOnWriteArrayList<>();

        @Override
        public void elected(Leadership leadership) {
            elected.add(leadership);
            calls.add("elected " + leadership.name() + " " + leadership.candidateId() + " " + leadership.term());
        }

        @Override
        public void revoked(Leadership leadership, String reason) {
            calls.add("revoked " + leadership.name() + " " + leadership.candidateId() + " " + leadership.term() + ": "
                    + reason);
        }

        /** Waits until {@code n} calls came. */
        List<String> awaitCalls(int n) {
            await().atMost(Duration.ofSeconds(15)).until(() -> calls.size() >= n);
            return List.copyOf(calls);
        }
    }

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

    /** The term counter as Redis holds it. */
    private static long termAtRedis(String name) {
        return Long.parseLong((String) redis.server().command("GET", Prefixed.derived(name, "term")));
    }

    @Test
    void electedIsCalledOnceForTheWinnerAndThenOnceForItsSuccessorAfterItResigns() throws Exception {
        String name = "el:listened";
        LeaderElection ea = a.election(name, options("alpha", Duration.ofSeconds(5)));
        LeaderElection eb = b.election(name, options("beta", Duration.ofSeconds(5)));
        Told alpha = new Told();
        Told beta = new Told();
        ea.addListener(alpha);
        eb.addListener(beta);

        Leadership first = ea.campaign(Duration.ofSeconds(10)).orElseThrow();
        assertThat(first.term()).isEqualTo(termAtRedis(name));
        assertThat(alpha.awaitCalls(1)).containsExactly("elected " + name + " alpha " + first.term());
        assertThat(alpha.elected).singleElement().isSameAs(first);
        assertThat(ea.campaign(Duration.ZERO)).as("campaigning while leading").containsSame(first);

        CompletableFuture<Optional<Leadership>> waiting = eb.campaignAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(15)).until(() -> eb.highestTermSeen() == first.term()); // told busy
        assertThat(waiting).isNotDone();
        assertThat(beta.calls).as("a candidate that waits is told nothing").isEmpty();

        assertThat(first.resign()).isTrue();
        Leadership second = waiting.get(15, TimeUnit.SECONDS).orElseThrow();
        assertThat(second.candidateId()).isEqualTo("beta");
        assertThat(second.term()).isGreaterThan(first.term()).isEqualTo(termAtRedis(name));
        assertThat(beta.awaitCalls(1)).containsExactly("elected " + name + " beta " + second.term());
        assertThat(beta.elected).singleElement().isSameAs(second);
        assertThat(alpha.awaitCalls(2)).as("alpha: elected once (campaigning again while leading told nothing), then revoked")
                .containsExactly("elected " + name + " alpha " + first.term(),
                        "revoked " + name + " alpha " + first.term() + ": resigned");

        assertThat(second.resign()).isTrue();
        assertThat(beta.awaitCalls(2)).containsExactly("elected " + name + " beta " + second.term(),
                "revoked " + name + " beta " + second.term() + ": resigned");
        assertThat(alpha.calls).as("alpha is told nothing of beta's leadership").hasSize(2);
    }

    /**
     * The first leader is another process, killed with SIGKILL while it leads: it neither resigns nor renews, and
     * the waiting candidate here is elected once its term's TTL has run out, and told so once.
     */
    @Test
    void electedIsCalledOnceForTheSuccessorOfALeaderKilledWhileItLeads() throws Exception {
        String name = "el:listened-kill";
        Duration ttl = Duration.ofSeconds(2);
        try (FencedResource referee = FencedResource.recording();
             Candidates others = new Candidates(referee, "lease", name, ttl)) {
            String killed = others.start(redis.uri());
            FencedResource.Event led = referee.await(0, "ENTER", killed, Duration.ofSeconds(30))
                    .orElseThrow(() -> new AssertionError("the other process was not elected; " + others.describe()));
            assertThat(led.token()).as("its term").isEqualTo(termAtRedis(name));

            LeaderElection eb = b.election(name, options("beta", ttl));
            Told beta = new Told();
            eb.addListener(beta);
            CompletableFuture<Optional<Leadership>> waiting = eb.campaignAsync(Duration.ofSeconds(60));
            await().atMost(Duration.ofSeconds(15)).until(() -> eb.highestTermSeen() == led.token()); // told busy
            assertThat(waiting).isNotDone();

            others.kill(killed);
            Leadership won = waiting.get(30, TimeUnit.SECONDS).orElseThrow();
            assertThat(won.candidateId()).isEqualTo("beta");
            assertThat(won.term()).isGreaterThan(led.token()).isEqualTo(termAtRedis(name));
            assertThat(beta.awaitCalls(1)).containsExactly("elected " + name + " beta " + won.term());
            assertThat(beta.elected).singleElement().isSameAs(won);

            assertThat(won.resign()).isTrue();
            assertThat(beta.awaitCalls(2)).containsExactly("elected " + name + " beta " + won.term(),
                    "revoked " + name + " beta " + won.term() + ": resigned");
        }
    }
}
