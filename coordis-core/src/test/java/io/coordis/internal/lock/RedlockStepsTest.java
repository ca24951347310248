package io.coordis.internal.lock;

import io.coordis.AccessDeniedException;
import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.internal.ManualTimer;
import io.coordis.internal.redis.Namespace;
import io.coordis.lock.LockOptions;
import io.coordis.lock.QuorumUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redlock's steps on nodes answered by hand, with time stepped by a manual timer: the majority, the per-node
 * deadline, the grace after the decision, validity, extension, release and the restart guard.
 */
class RedlockStepsTest {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(TTL).withRestartGuard(false);
    private static final Duration NODE_TIMEOUT = OPTIONS.nodeTimeout(); // 50 ms

    private final ManualTimer timer = new ManualTimer();
    private final List<FakeLockNode> nodes = FakeLockNode.of(3);

    private RedlockSteps steps(LockOptions options) {
        List<LockNode> lockNodes = new ArrayList<>(nodes);
        List<RestartGuard> guards = lockNodes.stream().map(n -> new RestartGuard(n, Namespace.NONE, timer)).toList();
        return new RedlockSteps(lockNodes, guards, options::ttl, "orders", options, timer);
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    private void grant(int node, long fence) {
        nodes.get(node).reply(Redlock.ACQUIRE, 1L, fence);
    }

    private List<NodeVote.Vote> kinds(List<NodeVote> votes) {
        return votes.stream().map(NodeVote::vote).toList();
    }

    @Test
    void aMajorityWithinTheTtlHoldsTheLockValidForTtlMinusElapsedMinusDrift() {
        RedlockSteps steps = steps(OPTIONS);
        long start = timer.now();
        CompletableFuture<RedlockSteps.Acquired> outcome = steps.acquire("token", false);
        timer.advance(ms(3));
        grant(0, 7);
        grant(1, 7);
        assertThat(outcome).as("decided; node 2 gets a grace as long as the decision took").isNotDone();
        timer.advance(ms(1));
        grant(2, 7);

        RedlockSteps.Acquired a = outcome.join();
        assertThat(a.granted()).isTrue();
        assertThat(a.fence()).isEqualTo(7);
        assertThat(a.start()).isEqualTo(start);
        assertThat(kinds(a.votes())).containsOnly(NodeVote.Vote.ACQUIRED);
        // validity = TTL − elapsed − (TTL × 0.01 + 2 ms)
        assertThat(Duration.ofNanos(a.validUntil() - timer.now())).isEqualTo(ms(10_000 - 4 - 100 - 2));
        assertThat(nodes.get(0).calls(Redlock.RELEASE)).isEmpty();
    }

    @Test
    void validityAllowsForTheDriftFactorPlusTwoMilliseconds() {
        RedlockSteps steps = steps(OPTIONS.withClockDriftFactor(0.1));
        CompletableFuture<RedlockSteps.Acquired> outcome = steps.acquire("token", false);
        timer.advance(ms(7));
        nodes.forEach(n -> n.reply(Redlock.ACQUIRE, 1L, 1L));
        assertThat(Duration.ofNanos(outcome.join().validUntil() - timer.now())).isEqualTo(ms(10_000 - 7 - 1_000 - 2));
    }

    @Test
    void votesArrivingAfterTheNodeDeadlineDoNotCount() {
        RedlockSteps steps = steps(OPTIONS);
        CompletableFuture<RedlockSteps.Acquired> outcome = steps.acquire("token", false);
        timer.advance(ms(1));
        grant(0, 3);
        timer.advance(NODE_TIMEOUT.minus(ms(2)));
        assertThat(outcome).isNotDone();
        timer.advance(ms(1));

        RedlockSteps.Acquired a = outcome.join();
        assertThat(a.granted()).isFalse();
        assertThat(kinds(a.votes())).containsExactly(NodeVote.Vote.ACQUIRED, NodeVote.Vote.TIMEOUT, NodeVote.Vote.TIMEOUT);
        assertThat(a.refusal().failure()).isInstanceOf(QuorumUnavailableException.class)
                .hasMessageContaining("failed nodes: 10.0.0.2:6379, 10.0.0.3:6379");
        assertThat(nodes.get(1).timedOut).as("the silent node's connection is given up").hasValue(1);
        // the grants that come now would have made a majority: they count for nothing, and are released
        grant(1, 3);
        grant(2, 3);
        assertThat(outcome.join().granted()).isFalse();
        nodes.forEach(n -> assertThat(n.calls(Redlock.RELEASE)).hasSize(1));
    }

    @Test
    void acquisitionFailsOnceElapsedLeavesNoValidity() {
        LockOptions shortTtl = OPTIONS.withTtl(ms(100)).withNodeTimeout(Duration.ofSeconds(1)); // drift 1 ms + 2 ms
        assertThat(acquiredAfter(shortTtl, ms(96)).granted()).as("1 ms of validity left").isTrue();
        assertThat(acquiredAfter(shortTtl, ms(97)).granted()).as("no validity left").isFalse();
        RedlockSteps.Acquired atTtl = acquiredAfter(shortTtl, ms(100));
        assertThat(atTtl.granted()).as("elapsed = TTL").isFalse();
        assertThat(atTtl.refusal().failure()).as("a majority granted: busy, not a failure").isNull();
        assertThat(acquiredAfter(shortTtl, ms(150)).granted()).as("elapsed > TTL").isFalse();
    }

    private RedlockSteps.Acquired acquiredAfter(LockOptions options, Duration elapsed) {
        RedlockSteps steps = steps(options);
        CompletableFuture<RedlockSteps.Acquired> outcome = steps.acquire("token-" + elapsed, false);
        timer.advance(elapsed);
        nodes.forEach(n -> n.reply(Redlock.ACQUIRE, 1L, 1L));
        RedlockSteps.Acquired a = outcome.join();
        if (a.granted()) {
            assertThat(Duration.ofNanos(a.validUntil() - timer.now()))
                    .isEqualTo(options.ttl().minus(elapsed).minus(ms(3)));
        } else {
            nodes.forEach(n -> assertThat(n.calls(Redlock.RELEASE)).as("released").isNotEmpty());
        }
        return a;
    }

    @Test
    void fencingCountersBelowTheLargestAreRaisedBeforeTheLockIsHeld() {
        RedlockSteps steps = steps(OPTIONS);
        CompletableFuture<RedlockSteps.Acquired> outcome = steps.acquire("token", false);
        grant(0, 9);
        grant(1, 4);
        nodes.get(2).reply(Redlock.ACQUIRE, 0L, 500L);
        assertThat(outcome).as("waits for node 1's counter").isNotDone();
        assertThat(nodes.get(1).pending(Redlock.RAISE_FENCE).args()).containsExactly("9", "600000", "token"); // the counter's retention (ms), the token
        nodes.get(1).reply(Redlock.RAISE_FENCE, 9L);
        assertThat(outcome.join().fence()).isEqualTo(9);
    }

    @Test
    void aNodeSilentPastTheGraceIsNotAwaitedByLaterRounds() {
        RedlockSteps steps = steps(OPTIONS);
        CompletableFuture<RedlockSteps.Acquired> first = steps.acquire("t1", false);
        timer.advance(ms(2));
        grant(0, 1);
        grant(1, 1);
        timer.advance(ms(2));
        NodeVote late = first.join().votes().get(2);
        assertThat(late.vote()).isEqualTo(NodeVote.Vote.NOT_AWAITED);
        assertThat(late.detail()).isEqualTo(Round.MAJORITY_DECIDED);
        assertThat(steps.health().isTrusted(2)).isFalse();

        CompletableFuture<RedlockSteps.Acquired> second = steps.acquire("t2", false);
        nodes.get(0).reply(Redlock.ACQUIRE, 1L, 2L);
        nodes.get(1).reply(Redlock.ACQUIRE, 1L, 2L);
        assertThat(second).as("decided, and nobody trusted left to wait for").isDone();
        assertThat(second.join().votes().get(2).detail()).isEqualTo(Redlock.NOT_WAITED_FOR);
    }

    @Test
    void extensionHoldsOnlyWithAMajorityWithinValidity() {
        RedlockSteps steps = steps(OPTIONS);
        CompletableFuture<Boolean> extended = steps.extend("token", TTL);
        nodes.get(0).reply(Redlock.EXTEND, 1L);
        assertThat(extended).isNotDone();
        nodes.get(1).reply(Redlock.EXTEND, 1L);
        assertThat(extended.join()).isTrue();
        nodes.get(2).reply(Redlock.EXTEND, 1L);

        CompletableFuture<Boolean> notOurs = steps.extend("token", TTL);
        nodes.get(0).reply(Redlock.EXTEND, 1L);
        nodes.get(1).reply(Redlock.EXTEND, 0L);
        nodes.get(2).reply(Redlock.EXTEND, 0L);
        assertThat(notOurs.join()).as("held by another on a majority").isFalse();

        CompletableFuture<Boolean> undecided = steps.extend("token", TTL);
        nodes.get(0).reply(Redlock.EXTEND, 1L);
        timer.advance(NODE_TIMEOUT);
        assertThatThrownBy(undecided::join).isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(QuorumUnavailableException.class);

        RedlockSteps slow = steps(OPTIONS.withTtl(ms(100)).withNodeTimeout(Duration.ofSeconds(1)));
        CompletableFuture<Boolean> tooLate = slow.extend("token", ms(100));
        timer.advance(ms(97));
        nodes.forEach(n -> n.reply(Redlock.EXTEND, 1L));
        assertThat(tooLate.join()).as("a majority, but past validity").isFalse();
    }

    @Test
    void releaseAnswersOnceAMajorityDeletedAndFailsWhenNoNodeAnswers() throws Exception {
        RedlockSteps steps = steps(OPTIONS);
        nodes.get(0).automatic = c -> List.of(1L);
        nodes.get(1).automatic = c -> List.of(1L);
        assertThat(steps.release("token")).as("node 2 not waited for").isTrue();

        nodes.forEach(n -> n.automatic = null);
        int timers = timer.pending();
        CompletableFuture<Boolean> silent = CompletableFuture.supplyAsync(() -> steps.release("token"));
        await().until(() -> timer.pending() > timers); // the round's deadline is set once every node was asked
        timer.advance(NODE_TIMEOUT);
        assertThatThrownBy(silent::join).hasCauseInstanceOf(NodeUnavailableException.class)
                .hasMessageContaining("could not release 'orders' on any of 3 Redis nodes");
    }

    /**
     * A release a node did not answer (its command failed: a timeout, a broken connection) is sent to it again, at
     * once the first time, then after pauses doubling from the node timeout to a second, at most
     * {@link RedlockSteps#MAX_RESENDS} times; a node that answers, or refuses for good, is not asked again.
     */
    @Test
    void aReleaseANodeDidNotAnswerIsSentAgainWithGrowingPausesUntilItAnswers() {
        RedlockSteps steps = steps(OPTIONS);
        nodes.get(0).automatic = c -> List.of(1L);
        nodes.get(1).automatic = c -> List.of(0L); // not ours: an answer
        steps.releaseEverywhere("token");
        FakeLockNode silent = nodes.get(2);
        NodeUnavailableException lost = new NodeUnavailableException(silent.address(), "connection closed", null);

        silent.fail(Redlock.RELEASE, lost);
        timer.runPending();
        assertThat(silent.calls(Redlock.RELEASE)).as("sent again at once").hasSize(2);
        List<Long> pauses = new ArrayList<>();
        for (int resent = 1; resent < RedlockSteps.MAX_RESENDS; resent++) {
            silent.fail(Redlock.RELEASE, lost);
            long waited = 0;
            while (silent.calls(Redlock.RELEASE).size() == resent + 1) {
                timer.advance(ms(10));
                waited += 10;
            }
            pauses.add(waited);
        }
        assertThat(pauses).as("pauses (ms) before each send after the first").containsExactly(50L, 100L, 200L, 400L,
                800L, 1000L, 1000L);
        silent.fail(Redlock.RELEASE, lost);
        timer.advance(Duration.ofSeconds(5));
        assertThat(silent.calls(Redlock.RELEASE)).as("given up after %d resends", RedlockSteps.MAX_RESENDS)
                .hasSize(1 + RedlockSteps.MAX_RESENDS);
        assertThat(nodes.get(0).calls(Redlock.RELEASE)).as("a node that deleted it is not asked again").hasSize(1);
        assertThat(nodes.get(1).calls(Redlock.RELEASE)).as("nor one where it was not ours").hasSize(1);
    }

    @Test
    void aReleaseIsNotSentAgainOnceTheKeyWouldHaveExpiredOrWhenTheNodeRefusedIt() {
        RedlockSteps steps = steps(OPTIONS.withTtl(Duration.ofMillis(120)));
        nodes.get(0).automatic = c -> List.of(1L);
        nodes.get(1).automatic = c -> List.of(1L);
        steps.releaseEverywhere("token");
        FakeLockNode late = nodes.get(2);
        NodeUnavailableException lost = new NodeUnavailableException(late.address(), "connection closed", null);
        timer.advance(ms(130)); // past the TTL: the key is gone from the node by itself
        late.fail(Redlock.RELEASE, lost);
        timer.advance(Duration.ofSeconds(5));
        assertThat(late.calls(Redlock.RELEASE)).as("not sent again after the TTL").hasSize(1);

        steps(OPTIONS).releaseEverywhere("other");
        late.fail(Redlock.RELEASE, new AccessDeniedException(late.address(), "NOPERM", null));
        timer.advance(Duration.ofSeconds(5));
        assertThat(late.calls(Redlock.RELEASE)).as("a refusal is an answer").hasSize(2);
    }

    @Test
    void aNodeInItsRestartGuardWindowDoesNotVote() {
        LockOptions guarded = OPTIONS.withRestartGuard(true);
        nodes.get(2).uptimeSeconds = 20; // the window is the TTL, 10 s, plus a second: 20 s is past it
        nodes.get(1).uptimeSeconds = 5;
        nodes.get(0).uptimeSeconds = 3600;
        RedlockSteps steps = steps(guarded);
        CompletableFuture<RedlockSteps.Acquired> outcome = steps.acquire("token", false);
        assertThat(nodes.get(0).pending(Redlock.ACQUIRE).args().get(4)).as("the verified run_id goes with the vote")
                .isEqualTo("run-10.0.0.1:6379");
        grant(0, 1);
        grant(2, 1);
        RedlockSteps.Acquired a = outcome.join();
        assertThat(a.granted()).isTrue();
        assertThat(a.votes().get(1).vote()).isEqualTo(NodeVote.Vote.REFUSED_RECENT_RESTART);
        assertThat(a.votes().get(1).detail()).as("up 5 s of the 11 s it needs").isEqualTo("up less than 10s; may vote in 6s");
        assertThat(nodes.get(1).calls(Redlock.ACQUIRE)).as("asked nothing").isEmpty();

        // node 2 restarts empty: its script refuses (no marker), and the next round checks it again
        nodes.get(2).uptimeSeconds = 1;
        CompletableFuture<RedlockSteps.Acquired> next = steps.acquire("token-2", false);
        grant(0, 2);
        nodes.get(2).reply(Redlock.ACQUIRE, -1L);
        RedlockSteps.Acquired refused = next.join();
        assertThat(kinds(refused.votes())).containsExactly(NodeVote.Vote.ACQUIRED,
                NodeVote.Vote.REFUSED_RECENT_RESTART, NodeVote.Vote.REFUSED_RECENT_RESTART);
        assertThat(refused.refusal().failure()).isInstanceOf(QuorumUnavailableException.class);
        assertThat(((QuorumUnavailableException) refused.refusal().failure()).retryAfter())
                .as("a wait pauses until the soonest refused node may vote").contains(Duration.ofSeconds(6));
        CompletableFuture<RedlockSteps.Acquired> third = steps.acquire("token-3", false);
        grant(0, 3);
        assertThat(third.join().votes().get(2).detail()).as("checked again, and too young").isEqualTo("up less than 10s; may vote in 10s");
    }

    @Test
    void restartGuardWindowIsTheUptimeInWholeSecondsPastTheWindowPlusOne() {
        assertThat(RestartGuard.upLongerThan(java.util.Map.of("uptime_in_seconds", "31"), Duration.ofSeconds(30))).isTrue();
        assertThat(RestartGuard.upLongerThan(java.util.Map.of("uptime_in_seconds", "30"), Duration.ofSeconds(30))).isFalse();
        assertThat(RestartGuard.upLongerThan(java.util.Map.of(), Duration.ofSeconds(30))).isFalse();
    }

    @Test
    void whatIsLeftOfTheWindowIsNeverShortOfIt() {
        Duration window = Duration.ofMillis(2500); // the node must report 4 s: 3.5 s rounded up
        for (int uptime = 0; uptime <= 5; uptime++) {
            Map<String, String> now = Map.of("uptime_in_seconds", String.valueOf(uptime));
            Duration left = RestartGuard.untilUpLongerThan(now, window);
            // the real uptime is at least the reported one: after waiting what is left, the report is past the window
            long reportedThen = uptime + left.getSeconds();
            assertThat(RestartGuard.upLongerThan(Map.of("uptime_in_seconds", String.valueOf(reportedThen)), window))
                    .as("up %d s, then %s more", uptime, left).isTrue();
            if (!left.isZero()) {
                assertThat(RestartGuard.upLongerThan(Map.of("uptime_in_seconds", String.valueOf(reportedThen - 1)),
                        window)).as("and not a second sooner").isFalse();
            }
        }
    }
}
