package io.coordis.internal.election;

import io.coordis.NodeUnavailableException;
import io.coordis.ProxiedClients;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.coordis.ProxiedClients.FAIL_BOUND;
import static io.coordis.ProxiedClients.FREED_BOUND;
import static io.coordis.ProxiedClients.LONG_TTL;
import static io.coordis.ProxiedClients.PAUSE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The election when an answer is lost: a campaign or a resignation whose answer never comes must not leave a
 * leadership nobody knows it holds. The TTL is far longer than the bounds below, so only a resignation sent
 * after the failed call can let the other candidate lead within them. One candidate talks to Redis through a
 * fault proxy, the other connects directly ({@link ProxiedClients}).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ElectionFaultsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private ProxiedClients clients;

    @BeforeEach
    void connect() {
        clients = ProxiedClients.to(redis.server());
    }

    @AfterEach
    void close() {
        clients.close();
    }

    /** The value of the term counter {@code key}; 0 while it does not exist. */
    private static long counter(String key) {
        Object value = redis.server().command("GET", key);
        return value == null ? 0 : Long.parseLong((String) value);
    }

    private static ElectionOptions options(String id) {
        return ElectionOptions.defaults().withCandidateId(id).withTtl(LONG_TTL);
    }

    @Test
    void aCampaignWhoseAnswerIsLostResignsWhatItWonAtOnce() throws Exception {
        LeaderElection mine = clients.viaProxy().election("lost:campaign", options("alpha"));
        LeaderElection theirs = clients.direct().election("lost:campaign", options("beta"));
        // loaded beforehand, so the dropped reply is the campaign's own and not a NOSCRIPT before it ran
        redis.server().command("SCRIPT", "LOAD", LeaseElection.ELECT.source());

        clients.proxy().dropNextReply();
        long start = System.nanoTime();
        assertThatThrownBy(() -> mine.campaign(Duration.ZERO)).isInstanceOf(NodeUnavailableException.class);
        long lostTerm = Long.parseLong((String) redis.server().command("GET", Prefixed.derived("lost:campaign", "term")));
        assertThat(clients.proxy().droppedReplies()).as("the campaign's reply was dropped").isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThanOrEqualTo(FAIL_BOUND);
        assertThat(mine.isLeader()).isFalse();

        Optional<Leadership> won = theirs.campaign(FREED_BOUND);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(won).as("still led by the campaign whose answer was lost").isPresent();
        assertThat(waited).as("led soon after the failed campaign, not after its %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(FAIL_BOUND.plus(FREED_BOUND));
        assertThat(won.get().term()).as("the lost campaign won a term at Redis before it was resigned")
                .isGreaterThan(lostTerm);
        assertThat(redis.server().command("GET", Prefixed.key("lost:campaign"))).isEqualTo("beta");
        won.get().resign();
    }

    /**
     * Interrupted while its answer is on the way (the proxy delays it): the campaign may still win at Redis,
     * and what it won is resigned on the same connection, after it.
     */
    @Test
    void anInterruptedCampaignResignsWhatItWon() throws Exception {
        LeaderElection mine = clients.viaProxy().election("interrupted:campaign", options("alpha"));
        LeaderElection theirs = clients.direct().election("interrupted:campaign", options("beta"));
        redis.server().command("SCRIPT", "LOAD", LeaseElection.ELECT.source());
        redis.server().command("SCRIPT", "LOAD", LeaseElection.RESIGN.source());
        assertThat(mine.leader()).as("connected before the latency, so the campaign is the only call it holds up")
                .isEmpty();

        long termsBefore = counter(Prefixed.derived("interrupted:campaign", "term"));
        clients.proxy().latency(Duration.ofMillis(200));
        CompletableFuture<Throwable> campaign = new CompletableFuture<>();
        Thread campaigner = new Thread(() -> {
            try {
                campaign.complete(new AssertionError("campaign answered " + mine.campaign(Duration.ZERO)));
            } catch (Throwable t) {
                campaign.complete(t);
            }
        });
        campaigner.start();
        Thread.sleep(100);
        campaigner.interrupt();
        assertThat(campaign.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        long start = System.nanoTime();
        // the delayed campaign reaches Redis after the interrupt and takes a term there
        String termKey = Prefixed.derived("interrupted:campaign", "term");
        await().atMost(FREED_BOUND).until(() -> counter(termKey) > termsBefore);
        long interruptedTerm = counter(termKey);

        Optional<Leadership> won = theirs.campaign(FREED_BOUND);
        assertThat(won).as("still led by the interrupted campaign").isPresent();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("led soon after the interrupt, not after the %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(FREED_BOUND.multipliedBy(2));
        assertThat(won.get().term()).as("the interrupted campaign won a term before it was resigned")
                .isGreaterThan(interruptedTerm);
        assertThat(mine.isLeader()).isFalse();
        won.get().resign();
    }

    /**
     * A resignation held up by the server ({@code CLIENT PAUSE}) past the command timeout: its connection is
     * closed, so it never runs. It is sent again on the new connection, and the waiting candidate leads as soon
     * as the server answers again.
     */
    @Test
    void aResignationHeldUpPastTheCommandTimeoutIsSentAgain() throws Exception {
        LeaderElection mine = clients.viaProxy().election("paused:resign", options("alpha"));
        LeaderElection theirs = clients.direct().election("paused:resign", options("beta"));
        Leadership lead = mine.campaign(Duration.ofSeconds(5)).orElseThrow();
        CompletableFuture<Optional<Leadership>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return theirs.campaign(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300); // the other candidate has tried, subscribed and waits on the 20 s TTL
        assertThat(waiting).isNotDone();

        long start = System.nanoTime();
        redis.server().command("CLIENT", "PAUSE", Long.toString(PAUSE.toMillis()));
        assertThatThrownBy(lead::resign).isInstanceOf(NodeUnavailableException.class);
        assertThat(lead.isHeld()).as("a leader that resigned stops leading even when Redis did not answer")
                .isFalse();

        Leadership theirsNow;
        try {
            theirsNow = waiting.get(30, TimeUnit.SECONDS).orElseThrow();
        } catch (ExecutionException e) {
            throw new AssertionError("the waiting candidate failed", e.getCause());
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("the resignation was sent again once the server answered, not left to the %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(PAUSE.plus(FREED_BOUND));
        assertThat(theirsNow.term()).isGreaterThan(lead.term());
        theirsNow.resign();
    }

    /**
     * A resignation by claim ends only the leadership that claim's try won: not one a later try won under the
     * same candidate id (two candidates configured with one id, or the same candidate again).
     */
    @Test
    void aResignationByClaimEndsOnlyTheLeadershipThatClaimWon() throws Exception {
        String name = "claim:same-id";
        Leadership first = clients.direct().election(name, options("alpha")).campaign(Duration.ofSeconds(5))
                .orElseThrow();
        String details = Prefixed.derived(name, "leader");
        Object firstClaim = redis.server().command("HGET", details, "claim");
        assertThat(firstClaim).as("a new leadership keeps the claim of the try that won it").isInstanceOf(String.class);
        assertThat(first.resign()).isTrue();
        Leadership second = clients.viaProxy().election(name, options("alpha")).campaign(Duration.ofSeconds(5))
                .orElseThrow();

        assertThat(resignByClaim(name, "alpha", (String) firstClaim)).as("the first try's claim")
                .isEqualTo(List.of(0L));
        assertThat(redis.server().command("GET", Prefixed.key(name))).isEqualTo("alpha");
        assertThat(second.isHeld()).isTrue();
        String secondClaim = (String) redis.server().command("HGET", details, "claim");
        assertThat(resignByClaim(name, "beta", secondClaim)).as("another id").isEqualTo(List.of(0L));
        assertThat(resignByClaim(name, "alpha", secondClaim)).as("the second try's claim").isEqualTo(List.of(1L));
        assertThat(redis.server().command("EXISTS", Prefixed.key(name), details)).isEqualTo(0L);
    }

    private static Object resignByClaim(String name, String id, String claim) {
        return redis.server().command("EVAL", LeaseElection.RESIGN.source(), "2", Prefixed.key(name),
                Prefixed.derived(name, "leader"), id, "", Prefixed.derived(name, "changed"), claim);
    }
}
