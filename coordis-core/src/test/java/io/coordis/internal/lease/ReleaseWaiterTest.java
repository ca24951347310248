package io.coordis.internal.lease;

import io.coordis.internal.ManualTimer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The wake-ups of a waiter: at the holder's expiry plus 1-20 ms of jitter, so that waiters woken together spread. */
class ReleaseWaiterTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void theJitterIsOneToTwentyMillisecondsAndCoversThatRange() {
        long[] jitters = LongStream.generate(ReleaseWaiter::jitter).limit(10_000).toArray();
        long min = LongStream.of(jitters).min().orElseThrow();
        long max = LongStream.of(jitters).max().orElseThrow();
        System.out.printf("jitter over 10000 draws: %.3f ms to %.3f ms%n", min / 1e6, max / 1e6);
        assertThat(min).as("least of 10000 jitters (ns)").isGreaterThanOrEqualTo(MS).isLessThan(2 * MS);
        assertThat(max).as("largest of 10000 jitters (ns)").isLessThan(20 * MS).isGreaterThan(19 * MS);
        assertThat(LongStream.of(jitters).distinct().count()).as("distinct values of 10000 jitters").isGreaterThan(9_900);
        // waiters woken in the same instant retry in different milliseconds: every millisecond of 1-20 is drawn
        long buckets = LongStream.of(jitters).map(j -> j / MS).distinct().count();
        assertThat(buckets).isEqualTo(19);
    }

    @Test
    void aWakeUpAtTheHoldersExpiryComesOneToTwentyMillisecondsAfterIt() {
        for (int i = 0; i < 1_000; i++) {
            assertThat(ReleaseWaiter.untilExpiry(500)).isGreaterThanOrEqualTo(501 * MS).isLessThan(520 * MS);
            assertThat(ReleaseWaiter.untilExpiry(0)).isGreaterThanOrEqualTo(MS).isLessThan(20 * MS);
            assertThat(ReleaseWaiter.untilExpiry(-1)).as("no expiry: checked again after a second")
                    .isGreaterThanOrEqualTo(1001 * MS).isLessThan(1020 * MS);
        }
        assertThat(ReleaseWaiter.untilExpiry(-2)).as("gone already: at once").isZero();
    }

    /**
     * Fifty waiters told the same TTL at the same instant (a holder that died, never to publish its release):
     * each wakes by itself no sooner than 1 ms after the expiry and no later than 20 ms after it, and they do not
     * wake together.
     */
    @Test
    void waitersToldTheSameTtlWakeSpreadOverTheJitter() {
        ManualTimer timer = new ManualTimer();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waits.add(new ReleaseWaiter().next(timer, 800, TimeUnit.SECONDS.toNanos(30)));
        }
        List<Long> wakeMillis = timer.deadlines().stream().map(d -> d.toNanos() / MS).toList();
        System.out.println("wake-ups of 50 waiters after an 800 ms TTL (ms): " + wakeMillis);
        assertThat(wakeMillis).hasSize(50).allSatisfy(ms -> assertThat(ms).isBetween(801L, 819L));
        assertThat(wakeMillis.stream().distinct().count()).as("distinct milliseconds").isGreaterThanOrEqualTo(10);

        timer.advance(Duration.ofMillis(801).minusNanos(1));
        assertThat(waits).noneMatch(CompletableFuture::isDone);
        timer.advance(Duration.ofMillis(19).plusNanos(1));
        assertThat(waits).allMatch(CompletableFuture::isDone);
    }

    @Test
    void aReleaseWakesAtOnceWithoutJitterAndTheWaitIsNeverLongerThanAllowed() {
        ManualTimer timer = new ManualTimer();
        ReleaseWaiter rung = new ReleaseWaiter();
        CompletableFuture<Void> wait = rung.next(timer, 10_000, TimeUnit.SECONDS.toNanos(30));
        rung.message("lock:released", "released");
        assertThat(wait).isDone();
        assertThat(timer.pending()).as("its timer was cancelled").isZero();

        CompletableFuture<Void> capped = new ReleaseWaiter().next(timer, 10_000, 300 * MS);
        assertThat(timer.deadlines()).as("the caller's budget comes before the jitter").containsExactly(Duration.ofMillis(300));
        timer.advance(Duration.ofMillis(300));
        assertThat(capped).isDone();
    }
}
