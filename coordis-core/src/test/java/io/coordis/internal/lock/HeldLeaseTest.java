package io.coordis.internal.lock;

import io.coordis.Telemetry;
import io.coordis.internal.ManualTimer;
import io.coordis.lock.LockOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Validity and loss of a lease, with time stepped by hand (no Redis involved: the lock side is scripted here). */
class HeldLeaseTest {
    private ManualTimer timer = new ManualTimer();

    /** The issuing lock's side of the protocol, answering as told. */
    private static class ScriptedOps implements LeaseOps {
        volatile CompletableFuture<Boolean> nextExtend = CompletableFuture.completedFuture(true);
        final AtomicInteger releases = new AtomicInteger();

        @Override
        public CompletableFuture<Boolean> extend(String token, Duration ttl) {
            return nextExtend;
        }

        @Override
        public boolean release(String token) {
            releases.incrementAndGet();
            return true;
        }

        final AtomicInteger releasesAfter = new AtomicInteger();
        volatile Duration keptFor;

        @Override
        public boolean releaseAfter(String token, Duration keepFor) {
            releasesAfter.incrementAndGet();
            keptFor = keepFor;
            return true;
        }
    }

    private HeldLease lease(ScriptedOps ops, Duration ttl, AtomicInteger closed) {
        return new HeldLease("n", "n", "tok", 7, java.util.List.of(), LockOptions.defaults().withTtl(ttl).withAutoRenew(false),
                timer.now(), ops, timer, Telemetry.NONE, closed::incrementAndGet);
    }

    @Test
    void validityIsTtlMinusDriftFromTheRequestStart() {
        assertThat(LockOptions.defaults().validityNanos(Duration.ofSeconds(10)))
                .isEqualTo(Duration.ofSeconds(10).minusMillis(100).minusMillis(2).toNanos());
        HeldLease lease = lease(new ScriptedOps(), Duration.ofSeconds(10), new AtomicInteger());
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(9898));
        timer.advance(Duration.ofMillis(9897));
        assertThat(lease.isHeld()).isTrue();
        timer.advance(Duration.ofMillis(1));
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.remainingValidity()).isZero();
    }

    @Test
    void extendMovesTheDeadlineFromTheExtendStart() {
        HeldLease lease = lease(new ScriptedOps(), Duration.ofSeconds(1), new AtomicInteger());
        timer.advance(Duration.ofMillis(900));
        assertThat(lease.extend(Duration.ofSeconds(2))).isTrue();
        assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(2000 - 20 - 2));
    }

    @Test
    void theTtlIsBoundedAboveAtThirtyDaysInOptionsAndOnExtendBeforeAnythingIsSent() {
        assertThat(LockOptions.MAX_TTL).isEqualTo(Duration.ofDays(30));
        LockOptions longest = LockOptions.defaults().withTtl(LockOptions.MAX_TTL);
        assertThat(longest.ttl()).isEqualTo(Duration.ofDays(30));
        assertThat(longest.validityNanos(longest.ttl())).as("exact at the bound")
                .isEqualTo(Duration.ofDays(30).toNanos() - Duration.ofDays(30).toNanos() / 100 - 2_000_000L);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LockOptions.defaults().withTtl(Duration.ofDays(31)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("lock ttl must be at most 30d, was 31d");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> LockOptions.defaults()
                        .withTtl(Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessage("lock ttl must be at most 30d, was " + Long.MAX_VALUE + "s");
        ScriptedOps ops = new ScriptedOps();
        ops.nextExtend = CompletableFuture.failedFuture(new AssertionError("nothing may be sent"));
        HeldLease lease = lease(ops, Duration.ofSeconds(1), new AtomicInteger());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> lease.extend(LockOptions.MAX_TTL.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock ttl must be at most 30d, was 2592000.001s");
        assertThat(lease.isHeld()).as("a refused extension leaves the lease as it was").isTrue();
    }

    @Test
    void aMaxHoldTooLongToAddToTheClockNeverEndsRenewalEarly() {
        AtomicInteger extensions = new AtomicInteger();
        ScriptedOps counting = new ScriptedOps() {
            @Override
            public CompletableFuture<Boolean> extend(String token, Duration ttl) {
                extensions.incrementAndGet();
                return CompletableFuture.completedFuture(true);
            }
        };
        timer = new ManualTimer(Duration.ofDays(365).toNanos()); // far from its origin, so that the sum overflows
        HeldLease lease = new HeldLease("n", "n", "tok", 7, java.util.List.of(), LockOptions.defaults()
                .withTtl(Duration.ofMillis(300)).withMaxHold(Duration.ofSeconds(Long.MAX_VALUE)), timer.now(),
                counting, timer, Telemetry.NONE, () -> { });
        timer.advance(Duration.ofMillis(100));
        assertThat(extensions).as("renewed at a third of the TTL").hasValue(1);
        timer.advance(Duration.ofMillis(100));
        assertThat(extensions).hasValue(2);
        assertThat(lease.isHeld()).isTrue();
        lease.close();
    }

    @Test
    void extendThatFindsTheLockGoneLosesTheLease() throws Exception {
        ScriptedOps ops = new ScriptedOps();
        ops.nextExtend = CompletableFuture.completedFuture(false);
        HeldLease lease = lease(ops, Duration.ofSeconds(1), new AtomicInteger());
        assertThat(lease.extend(Duration.ofSeconds(1))).isFalse();
        assertThat(lease.isHeld()).isFalse();
        timer.runPending();
        assertThat(lease.lost().toCompletableFuture()).isCompletedWithValue(lease);
    }

    @Test
    void releaseIsIdempotentAndFreesTheLocalQueueOnce() {
        ScriptedOps ops = new ScriptedOps();
        AtomicInteger closed = new AtomicInteger();
        HeldLease lease = lease(ops, Duration.ofSeconds(1), closed);
        assertThat(lease.release()).isTrue();
        assertThat(lease.release()).isFalse();
        lease.close();
        assertThat(ops.releases).hasValue(1);
        assertThat(closed).hasValue(1);
        assertThat(lease.isHeld()).isFalse();
        timer.advance(Duration.ofSeconds(2));
        assertThat(lease.lost().toCompletableFuture()).as("a release is no loss, even past the deadline").isNotDone();
        assertThat(timer.pending()).as("nothing left on the timer").isZero();
    }

    @Test
    void closingALostLeaseDoesNotThrowWhenRedisIsUnreachable() {
        ScriptedOps ops = new ScriptedOps() {
            @Override
            public boolean release(String token) {
                releases.incrementAndGet();
                throw new io.coordis.NodeUnavailableException("127.0.0.1:1", "down", null);
            }
        };
        ops.nextExtend = CompletableFuture.completedFuture(false);
        AtomicInteger closed = new AtomicInteger();
        HeldLease lease = lease(ops, Duration.ofSeconds(1), closed);
        assertThat(lease.extend(Duration.ofSeconds(1))).isFalse();
        lease.close();
        assertThat(ops.releases).hasValue(1);
        assertThat(closed).hasValue(1);
    }

    @Test
    void releasingAHeldLeaseReportsRedisTrouble() {
        ScriptedOps ops = new ScriptedOps() {
            @Override
            public boolean release(String token) {
                throw new io.coordis.NodeUnavailableException("127.0.0.1:1", "down", null);
            }
        };
        AtomicInteger closed = new AtomicInteger();
        HeldLease lease = lease(ops, Duration.ofSeconds(1), closed);
        org.assertj.core.api.Assertions.assertThatThrownBy(lease::release)
                .isInstanceOf(io.coordis.NodeUnavailableException.class);
        assertThat(closed).hasValue(1);
    }

    @Test
    void watchdogThatCannotReachRedisDeclaresLossAtTheDeadline() {
        ScriptedOps ops = new ScriptedOps();
        ops.nextExtend = new CompletableFuture<>(); // never answers
        HeldLease lease = new HeldLease("n", "n", "tok", 7, java.util.List.of(),
                LockOptions.defaults().withTtl(Duration.ofMillis(300)), timer.now(), ops, timer,
                Telemetry.NONE, () -> { });
        Duration validity = Duration.ofNanos(LockOptions.defaults().validityNanos(Duration.ofMillis(300)));
        timer.advance(validity.minusNanos(1));
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.lost().toCompletableFuture()).isNotDone();
        timer.advance(Duration.ofNanos(1));
        assertThat(lease.lost().toCompletableFuture()).as("lost at the deadline, unasked").isCompletedWithValue(lease);
        assertThat(lease.isHeld()).isFalse();
    }

    @Test
    void releaseAfterEndsTheLeaseOnceAndZeroIsARelease() {
        ScriptedOps ops = new ScriptedOps();
        AtomicInteger closed = new AtomicInteger();
        HeldLease lease = lease(ops, Duration.ofSeconds(10), closed);
        assertThat(lease.releaseAfter(Duration.ofNanos(300_000))).isTrue();
        assertThat(ops.keptFor).as("below a millisecond: one, what Redis can count").isEqualTo(Duration.ofMillis(1));
        assertThat(lease.isHeld()).isFalse();
        assertThat(closed.get()).as("the next local caller may try").isEqualTo(1);
        assertThat(lease.releaseAfter(Duration.ofSeconds(1))).isFalse();
        assertThat(lease.release()).isFalse();
        assertThat(ops.releasesAfter.get() + ops.releases.get()).isEqualTo(1);
        assertThat(lease.lost().toCompletableFuture()).isNotDone();

        HeldLease other = lease(ops, Duration.ofSeconds(10), closed);
        assertThat(other.releaseAfter(Duration.ZERO)).isTrue();
        assertThat(ops.releases.get()).as("zero or less is a plain release").isEqualTo(1);
        HeldLease tooLong = lease(ops, Duration.ofSeconds(10), closed);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> tooLong.releaseAfter(Duration.ofDays(31)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("time to keep the lock must be at most");
        assertThat(tooLong.isHeld()).as("a refused call changes nothing").isTrue();
    }
}
