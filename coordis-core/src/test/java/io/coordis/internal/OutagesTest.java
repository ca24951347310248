package io.coordis.internal;

import io.coordis.AccessDeniedException;
import io.coordis.CommandRejectedException;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.WrongTypeException;
import io.coordis.lock.QuorumUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The wait rule: which failures a wait rides out, how long it pauses, and a blocking retry on a manual clock. */
class OutagesTest {
    private static final NodeUnavailableException DOWN = new NodeUnavailableException("n:1", "down", null);

    @Test
    void transientFailuresAreRiddenOutAndPermanentOnesAreNot() {
        assertThat(Outages.ridesOut(DOWN)).isTrue();
        assertThat(Outages.ridesOut(new CompletionException(DOWN))).as("wrapped").isTrue();
        assertThat(Outages.ridesOut(new QuorumUnavailableException("cannot lock 'x'", 3, List.of()))).isTrue();
        assertThat(Outages.ridesOut(new CommandRejectedException("n:1", "READONLY", null, true))).isTrue();
        assertThat(Outages.ridesOut(new CommandRejectedException("n:1", "OOM", null))).isFalse();
        assertThat(Outages.ridesOut(new AccessDeniedException("n:1", AccessDeniedException.Reason.CREDENTIALS,
                "WRONGPASS", null))).isFalse();
        assertThat(Outages.ridesOut(new WrongTypeException("n:1", "k", "list", "WRONGTYPE", null))).isFalse();
        assertThat(Outages.ridesOut(new CoordisException("n:1", "the client is closed", null))).isFalse();
        assertThat(Outages.ridesOut(new IllegalStateException("bug"))).isFalse();
        assertThat(Outages.ridesOut(new NodeUnavailableException("n:1", "TLS handshake failed", null, false, false)))
                .as("a configuration error: the TLS handshake failed").isFalse();
    }

    @Test
    void theBackoffIsJitteredAndDoublesUpToASecond() {
        long ms = TimeUnit.MILLISECONDS.toNanos(1);
        for (int i = 0; i < 200; i++) {
            assertThat(Outages.backoffNanos(1)).isBetween(25 * ms, 50 * ms);
            assertThat(Outages.backoffNanos(2)).isBetween(50 * ms, 100 * ms);
            assertThat(Outages.backoffNanos(5)).isBetween(400 * ms, 800 * ms);
            assertThat(Outages.backoffNanos(6)).isBetween(500 * ms, 1000 * ms);
            assertThat(Outages.backoffNanos(1000)).isBetween(500 * ms, 1000 * ms);
        }
        long distinct = java.util.stream.IntStream.range(0, 50).mapToLong(i -> Outages.backoffNanos(3)).distinct().count();
        assertThat(distinct).as("jittered").isGreaterThan(10);
    }

    @Test
    void aKnownDurationIsWaitedExactlyAndEveryPauseStaysInsideTheBudget() {
        QuorumUnavailableException guarded = new QuorumUnavailableException("cannot lock 'x'", 3, List.of(),
                Duration.ofMillis(2300));
        assertThat(Outages.pauseNanos(guarded, 1, Long.MAX_VALUE)).isEqualTo(TimeUnit.MILLISECONDS.toNanos(2300));
        assertThat(Outages.pauseNanos(guarded, 1, 1000)).as("never past the wait").isEqualTo(1000);
        assertThat(Outages.pauseNanos(DOWN, 9, 7)).isEqualTo(7);
    }

    @Test
    void retryingTriesAgainUntilItWorksOrTheWaitIsSpent() throws Exception {
        ManualTicker clock = new ManualTicker();
        AtomicInteger tries = new AtomicInteger();
        String won = Outages.retrying(clock, Duration.ofSeconds(10), left -> {
            clock.advance(Duration.ofMillis(100));
            if (tries.incrementAndGet() < 3) {
                throw DOWN;
            }
            return "connected";
        });
        assertThat(won).isEqualTo("connected");
        assertThat(tries).hasValue(3);

        tries.set(0);
        assertThatThrownBy(() -> Outages.retrying(clock, Duration.ofSeconds(1), left -> {
            tries.incrementAndGet();
            clock.advance(Duration.ofMillis(400));
            throw DOWN;
        })).isSameAs(DOWN);
        assertThat(tries).as("until the second was spent").hasValue(3);

        tries.set(0);
        AccessDeniedException denied = new AccessDeniedException("n:1", AccessDeniedException.Reason.CREDENTIALS,
                "WRONGPASS", null);
        assertThatThrownBy(() -> Outages.retrying(clock, Duration.ofSeconds(10), left -> {
            tries.incrementAndGet();
            throw denied;
        })).isSameAs(denied);
        assertThat(tries).as("a permanent failure at once").hasValue(1);
    }

    @Test
    void retryingAsyncPausesOnTheTimerGivesEachTryWhatIsLeftAndEndsWithTheLastFailure() {
        ManualTimer timer = new ManualTimer();
        List<Duration> given = new CopyOnWriteArrayList<>();
        AtomicInteger tries = new AtomicInteger();
        CompletableFuture<String> won = Outages.retryingAsync(timer, Duration.ofSeconds(10),
                left -> {
                    given.add(left);
                    return tries.incrementAndGet() < 3 ? CompletableFuture.failedFuture(DOWN)
                            : CompletableFuture.completedFuture("granted");
                });
        assertThat(won).as("paused on the timer, not on a thread").isNotDone();
        assertThat(tries).hasValue(1);
        timer.advance(Duration.ofSeconds(2)); // both pauses (at most 50 and 100 ms) pass
        assertThat(won).isCompletedWithValue("granted");
        assertThat(given).hasSize(3).first().isEqualTo(Duration.ofSeconds(10));
        assertThat(given.get(2)).isLessThan(given.get(1)).isGreaterThan(Duration.ofMillis(9800));

        tries.set(0);
        CompletableFuture<String> spent = Outages.retryingAsync(timer, Duration.ofSeconds(1),
                left -> {
                    tries.incrementAndGet();
                    return CompletableFuture.failedFuture(DOWN);
                });
        timer.advance(Duration.ofSeconds(5));
        assertThat(spent).isCompletedExceptionally();
        assertThatThrownBy(spent::join).hasCauseReference(DOWN);
        assertThat(tries.get()).as("tried until the second was spent, no longer").isBetween(3, 12);
        assertThat(timer.pending()).as("nothing left scheduled").isZero();

        tries.set(0);
        WrongTypeException wrong = new WrongTypeException("n:1", "k", "hash", "WRONGTYPE", null);
        CompletableFuture<String> permanent = Outages.retryingAsync(timer, Duration.ofSeconds(10),
                left -> {
                    tries.incrementAndGet();
                    return CompletableFuture.failedFuture(wrong);
                });
        assertThatThrownBy(permanent::join).as("a permanent failure at once").hasCauseReference(wrong);
        assertThat(tries).hasValue(1);

        tries.set(0);
        CompletableFuture<String> cancelled = Outages.retryingAsync(timer, Duration.ofSeconds(10),
                left -> {
                    tries.incrementAndGet();
                    return CompletableFuture.failedFuture(DOWN);
                });
        cancelled.cancel(false);
        timer.advance(Duration.ofSeconds(10));
        assertThat(tries).as("no try after the cancel").hasValue(1);
    }

    /** A clock stepped by hand (the pauses themselves still sleep, for at most the backoff). */
    private static final class ManualTicker implements io.coordis.Ticker {
        private long now;

        @Override
        public long read() {
            return now;
        }

        void advance(Duration d) {
            now += d.toNanos();
        }
    }
}
