package io.coordis.internal.lease;

import io.coordis.Telemetry;
import io.coordis.internal.ManualTimer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Renewal, deadline and loss of a session, with time stepped by hand. */
class LeaseSessionTest {
    private static final Duration TTL = Duration.ofSeconds(9);
    private static final long VALIDITY = TTL.minusMillis(100).toNanos();
    private static final long THIRD = TTL.toNanos() / 3;

    private final ManualTimer timer = new ManualTimer();
    private final List<Telemetry.Loss> losses = new CopyOnWriteArrayList<>();
    private final AtomicInteger renewals = new AtomicInteger();
    /** What the session told its telemetry, in order. */
    private final List<String> told = new CopyOnWriteArrayList<>();
    private final Telemetry.Hold hold = new Telemetry.Hold() {
        @Override
        public void renewal(Telemetry.Renewal outcome) {
            told.add(outcome.name());
        }

        @Override
        public void lost(Telemetry.Loss reason) {
            told.add("lost " + reason);
        }

        @Override
        public void ended() {
            told.add("ended");
        }
    };
    /** What the next renewal answers. */
    private volatile CompletableFuture<Boolean> answer = CompletableFuture.completedFuture(true);

    private LeaseSession session(LeaseSession.Terms terms) {
        return new LeaseSession(timer, "lock 'n'", timer.now(), terms, () -> {
            renewals.incrementAndGet();
            return answer;
        }, losses::add, hold);
    }

    private LeaseSession renewed() {
        return session(LeaseSession.Terms.renewed(VALIDITY, THIRD));
    }

    @Test
    void renewsAtAThirdOfTheTtlAndMovesTheDeadlineFromTheRenewalsStart() {
        LeaseSession s = renewed();
        assertThat(timer.deadlines()).as("one task: the first renewal").containsExactly(Duration.ofSeconds(3));
        timer.advance(Duration.ofSeconds(3).minusNanos(1));
        assertThat(renewals).hasValue(0);
        timer.advance(Duration.ofNanos(1));
        assertThat(renewals).hasValue(1);
        assertThat(s.remaining()).isEqualTo(Duration.ofNanos(VALIDITY));
        assertThat(timer.deadlines()).as("one task: the next renewal").containsExactly(Duration.ofSeconds(3));
        timer.advance(Duration.ofSeconds(30));
        assertThat(renewals).as("at 3 s, then every 3 s up to 33 s").hasValue(11);
        assertThat(s.isHeld()).isTrue();
        assertThat(losses).isEmpty();
    }

    @Test
    void renewalsThatFailAreRetriedAndTheSessionIsLostAtTheLocalDeadline() {
        answer = CompletableFuture.failedFuture(new IllegalStateException("Redis is down"));
        LeaseSession s = renewed();
        timer.advance(Duration.ofNanos(VALIDITY - 1));
        assertThat(s.isHeld()).isTrue();
        assertThat(renewals.get()).as("retried every second after the first failure").isEqualTo(1 + 5);
        assertThat(s.lost().toCompletableFuture()).isNotDone();
        timer.advance(Duration.ofNanos(1));
        assertThat(losses).containsExactly(Telemetry.Loss.DEADLINE);
        assertThat(s.lost().toCompletableFuture()).isCompleted();
        assertThat(s.isHeld()).isFalse();
        assertThat(s.remaining()).isZero();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void aRenewalInFlightPastTheDeadlineLosesItAndItsLateAnswerDoesNotReviveIt() {
        answer = new CompletableFuture<>();
        LeaseSession s = renewed();
        timer.advance(Duration.ofSeconds(3));
        assertThat(renewals).hasValue(1);
        assertThat(timer.deadlines()).as("one task: the deadline, while the renewal is in flight")
                .containsExactly(Duration.ofNanos(VALIDITY).minusSeconds(3));
        timer.advance(Duration.ofNanos(VALIDITY));
        assertThat(losses).containsExactly(Telemetry.Loss.DEADLINE);
        answer.complete(true);
        assertThat(s.isHeld()).isFalse();
        assertThat(timer.pending()).isZero();
    }

    @Test
    void theLossIsSignalledOnceHoweverItIsNoticed() {
        answer = CompletableFuture.completedFuture(false);
        LeaseSession s = renewed();
        AtomicInteger signals = new AtomicInteger();
        s.lost().thenRun(signals::incrementAndGet);
        timer.advance(Duration.ofSeconds(3));
        assertThat(losses).containsExactly(Telemetry.Loss.NOT_OURS);
        s.notOurs();
        s.extended(timer.now(), VALIDITY, THIRD);
        assertThat(s.isHeld()).isFalse();
        assertThat(s.end()).isEqualTo(LeaseSession.State.LOST);
        timer.advance(Duration.ofSeconds(30));
        assertThat(losses).hasSize(1);
        assertThat(signals).hasValue(1);
        assertThat(renewals).hasValue(1);
        assertThat(told).containsExactly("REFUSED", "lost NOT_OURS", "ended");
    }

    @Test
    void theTelemetryHearsEachRenewalAndOneEnd() {
        LeaseSession s = renewed();
        timer.advance(Duration.ofSeconds(3));
        answer = CompletableFuture.failedFuture(new IllegalStateException("down"));
        timer.advance(Duration.ofSeconds(3));
        answer = CompletableFuture.completedFuture(true);
        timer.advance(Duration.ofSeconds(1));
        assertThat(s.end()).isEqualTo(LeaseSession.State.HELD);
        assertThat(s.end()).isEqualTo(LeaseSession.State.ENDED);
        assertThat(told).containsExactly("RENEWED", "FAILED", "RENEWED", "ended");
    }

    @Test
    void noLossAfterTheSessionEnded() {
        LeaseSession s = renewed();
        timer.advance(Duration.ofSeconds(1));
        assertThat(s.end()).isEqualTo(LeaseSession.State.HELD);
        assertThat(s.end()).as("idempotent").isEqualTo(LeaseSession.State.ENDED);
        assertThat(timer.pending()).as("the renewal is cancelled").isZero();
        timer.advance(Duration.ofMinutes(1));
        assertThat(s.isHeld()).isFalse();
        assertThat(s.lost().toCompletableFuture()).isNotDone();
        assertThat(losses).isEmpty();
        assertThat(renewals).hasValue(0);
    }

    @Test
    void aReadPastTheDeadlineLosesItBeforeAnyTimerRuns() {
        LeaseSession s = renewed();
        timer.close(); // no task runs any more: as in a process resumed after a pause, before its timer thread
        timer.advance(Duration.ofNanos(VALIDITY));
        assertThat(losses).isEmpty();
        assertThat(s.isHeld()).isFalse();
        assertThat(losses).containsExactly(Telemetry.Loss.DEADLINE);
        assertThat(told).containsExactly("lost DEADLINE", "ended");
        assertThat(s.lost().toCompletableFuture()).as("told on this thread once the timer is closed").isCompleted();
    }

    @Test
    void withoutRenewalItEndsAtTheDeadlineAndAnExtensionMovesIt() {
        LeaseSession s = session(new LeaseSession.Terms(VALIDITY, THIRD, false, Long.MAX_VALUE));
        assertThat(timer.deadlines()).containsExactly(Duration.ofNanos(VALIDITY));
        timer.advance(Duration.ofSeconds(5));
        s.extended(timer.now(), VALIDITY, THIRD);
        assertThat(timer.deadlines()).as("still no renewal").containsExactly(Duration.ofNanos(VALIDITY));
        timer.advance(Duration.ofNanos(VALIDITY));
        assertThat(renewals).hasValue(0);
        assertThat(losses).containsExactly(Telemetry.Loss.DEADLINE);
    }

    @Test
    void renewalStopsAtItsLimitAndTheSessionEndsWithItsValidity() {
        LeaseSession s = session(new LeaseSession.Terms(VALIDITY, THIRD, true, timer.now() + THIRD * 2));
        timer.advance(Duration.ofNanos(THIRD * 2));
        assertThat(renewals).as("the renewal due at the limit is not sent").hasValue(1);
        assertThat(s.isHeld()).isTrue();
        timer.advance(Duration.ofNanos(VALIDITY));
        assertThat(renewals).hasValue(1);
        assertThat(losses).containsExactly(Telemetry.Loss.DEADLINE);
    }
}
