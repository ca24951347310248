package io.coordis.internal.contest;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Telemetry;
import io.coordis.internal.ManualTimer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The contest engine stepped by hand: a manual timer, and tries answered by the test. */
@Timeout(10)
class ContestTest {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final ManualTimer timer = new ManualTimer();
    private final Scripted contestant = new Scripted();
    private final List<Telemetry.Result> told = new ArrayList<>();

    /** A contestant whose tries the test answers, and which records what the contest asked of it. */
    private final class Scripted implements Contestant<String> {
        final List<CompletableFuture<Answer<String>>> tries = new ArrayList<>();
        final List<String> calls = new ArrayList<>();
        Contest<String> contest;
        /** What happens after a busy answer, before its pause begins. */
        Runnable beforePause = () -> { };

        @Override
        public CompletableFuture<Answer<String>> attempt(boolean waits) {
            CompletableFuture<Answer<String>> answer = new CompletableFuture<>();
            tries.add(answer);
            return answer;
        }

        @Override
        public CompletableFuture<Boolean> pause(Answer<String> busy, long maxNanos) {
            calls.add("pause");
            beforePause.run();
            return contest.nap(Math.min(SECOND, maxNanos));
        }

        @Override
        public void undo(String won) {
            calls.add("undo " + won);
        }

        @Override
        public void close(String won, Throwable failure) {
            calls.add("close");
        }

        CompletableFuture<Answer<String>> last() {
            return tries.get(tries.size() - 1);
        }
    }

    private Contest<String> contest(long waitNanos, Contest.Deadline cuts) {
        Contest<String> c = new Contest<>(contestant, timer, (result, took) -> told.add(result), waitNanos, false,
                cuts, null);
        contestant.contest = c;
        return c;
    }

    @Test
    void theCallerSeesTheOutcomeOnlyAfterTheContestLetGo() {
        CompletableFuture<String> outcome = contest(0, Contest.Deadline.LAST_TRY).start();
        List<String> seen = new ArrayList<>();
        outcome.whenComplete((v, f) -> seen.addAll(contestant.calls));

        contestant.last().complete(Answer.busy(1000));

        assertThat(outcome).isCompletedWithValue(null);
        assertThat(seen).containsExactly("close");
        assertThat(told).containsExactly(Telemetry.Result.BUSY);
    }

    @Test
    void aTransientFailureIsTriedAgainWhileTheWaitLasts() {
        CompletableFuture<String> outcome = contest(10 * SECOND, Contest.Deadline.LAST_TRY).start();

        contestant.last().completeExceptionally(new NodeUnavailableException("n:1", "restarting", null));
        assertThat(contestant.tries).hasSize(1);
        timer.advance(Duration.ofSeconds(1));
        assertThat(contestant.tries).hasSize(2);
        contestant.last().complete(Answer.won("lease"));

        assertThat(outcome).isCompletedWithValue("lease");
        assertThat(told).containsExactly(Telemetry.Result.ACQUIRED);
    }

    @Test
    void aPermanentFailureEndsTheWaitAtOnce() {
        CompletableFuture<String> outcome = contest(10 * SECOND, Contest.Deadline.LAST_TRY).start();

        contestant.last().completeExceptionally(new CoordisException("n:1", "NOPERM", null));

        assertThatThrownBy(outcome::get).isInstanceOf(ExecutionException.class).hasMessageContaining("NOPERM");
        assertThat(contestant.tries).hasSize(1);
        assertThat(told).containsExactly(Telemetry.Result.ERROR);
    }

    @Test
    void aWinThatComesAfterACancelIsUndoneAndTheCloseWaitsForIt() {
        CompletableFuture<String> outcome = contest(10 * SECOND, Contest.Deadline.LAST_TRY).start();

        assertThat(outcome.cancel(true)).isTrue();
        assertThat(contestant.calls).isEmpty(); // the try is still out

        contestant.last().complete(Answer.won("late"));
        assertThat(contestant.calls).containsExactly("undo late", "close");
        assertThat(told).containsExactly(Telemetry.Result.INTERRUPTED);
    }

    @Test
    void aRingEndsThePauseAndARingDuringATryEndsTheNextOneAtOnce() {
        CompletableFuture<String> outcome = contest(10 * SECOND, Contest.Deadline.LAST_TRY).start();
        Contest<String> c = contestant.contest;

        contestant.last().complete(Answer.busy(5000));
        c.ring();
        assertThat(contestant.tries).hasSize(2);
        c.ring(); // while the second try is out
        contestant.last().complete(Answer.busy(5000));
        assertThat(contestant.tries).hasSize(3);
        contestant.last().complete(Answer.won("lease"));

        assertThat(outcome).isCompletedWithValue("lease");
    }

    /** News that comes after a busy answer, before the pause after it began, is not slept through. */
    @Test
    void aRingBetweenABusyAnswerAndItsPauseEndsThatPauseAtOnce() {
        CompletableFuture<String> outcome = contest(10 * SECOND, Contest.Deadline.LAST_TRY).start();
        contestant.beforePause = contestant.contest::ring;

        contestant.last().complete(Answer.busy(5000));
        assertThat(contestant.tries).as("tried again without the time moving").hasSize(2);
        contestant.beforePause = () -> { };
        contestant.last().complete(Answer.won("lease"));

        assertThat(outcome).isCompletedWithValue("lease");
    }

    @Test
    void withLastTryAPauseEndsAtTheDeadlineAndOneMoreTryDecides() {
        CompletableFuture<String> outcome = contest(SECOND / 2, Contest.Deadline.LAST_TRY).start();

        contestant.last().complete(Answer.busy(5000));
        timer.advance(Duration.ofMillis(500));
        assertThat(contestant.tries).hasSize(2);
        contestant.last().complete(Answer.busy(5000));

        assertThat(outcome).isCompletedWithValue(null);
        assertThat(told).containsExactly(Telemetry.Result.TIMEOUT);
    }

    @Test
    void withCutsWaitsTheDeadlineEndsAnOutagePauseWithItsFailure() {
        CompletableFuture<String> outcome = contest(SECOND / 2, Contest.Deadline.CUTS_WAITS).start();

        contestant.last().completeExceptionally(new CoordisException("n:1", "restarting", null) {
            @Override
            public boolean isTransient() {
                return true;
            }

            @Override
            public Optional<Duration> retryAfter() {
                return Optional.of(Duration.ofSeconds(10)); // longer than the wait: the pause lasts to the deadline
            }
        });
        timer.advance(Duration.ofMillis(600));
        assertThat(contestant.tries).hasSize(1);

        assertThatThrownBy(outcome::get).hasMessageContaining("restarting");
        assertThat(contestant.calls).containsExactly("close");
    }
}
