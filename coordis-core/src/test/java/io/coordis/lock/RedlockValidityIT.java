package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.Ticker;
import io.coordis.internal.lock.RedlockNodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redlock lease is valid for TTL − elapsed − (TTL × drift factor + 2 ms), timed by the client's
 * ticker from the start of the attempt that succeeded. Real nodes, injected clocks.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RedlockValidityIT {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(TTL).withAutoRenew(false)
            .withRestartGuard(false);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(5);

    /** A ticker that stands still unless told to move, or moves {@code step} on every read. */
    private static final class RedlockTestTicker implements Ticker {
        private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
        private final long step;

        RedlockTestTicker(Duration step) {
            this.step = step.toNanos();
        }

        @Override
        public long read() {
            return nanos.addAndGet(step);
        }

        void advance(Duration d) {
            nanos.addAndGet(d.toNanos());
        }
    }

    /** A client on the five nodes with {@code ticker}, its connections up (warmed with the system clock). */
    private static Coordis connect(Ticker ticker) throws InterruptedException {
        SwitchableTicker switchable = new SwitchableTicker();
        Coordis client = TestClients.builder().urls(redis.uris()).ticker(switchable).connect();
        try {
            RedlockNodes.warmUp(client, 5);
        } catch (RuntimeException | Error e) {
            client.close();
            throw e;
        }
        switchable.delegate = ticker;
        return client;
    }

    /** The system clock until a test's clock is put in. */
    private static final class SwitchableTicker implements Ticker {
        private volatile Ticker delegate = Ticker.system();

        @Override
        public long read() {
            return delegate.read();
        }
    }

    @Test
    void anAttemptThatOutlivesItsValidityFailsAndLeavesNothingOnTheNodes() throws Exception {
        String name = "validity:slow";
        // every read of the clock is a TTL later: the attempt's own end is past TTL − drift
        try (Coordis slow = connect(new RedlockTestTicker(TTL))) {
            assertThat(slow.lock(name, OPTIONS).tryAcquire()).as("granted although the attempt took a whole TTL").isEmpty();
        }
        List<RedisServer> servers = redis.servers();
        assertThat(RedlockNodes.values(servers, Prefixed.derived(name, "fence")))
                .as("every node did grant (took a number) before the client threw the attempt away")
                .doesNotContainNull();
        RedlockNodes.awaitValues(servers, Prefixed.key(name), Duration.ofSeconds(2), (i, v) -> v == null,
                "a late attempt is released on every node");

        // the same nodes, a clock moving less than the validity: granted, so it was the clock that refused
        try (Coordis fine = connect(new RedlockTestTicker(TTL.dividedBy(10)))) {
            Lease lease = fine.lock(name, OPTIONS).tryAcquire().orElseThrow();
            assertThat(lease.remainingValidity()).isPositive().isLessThan(TTL);
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void validityIsTtlMinusDriftAllowanceOnAStoppedClock() throws Exception {
        RedlockTestTicker clock = new RedlockTestTicker(Duration.ZERO);
        try (Coordis client = connect(clock)) {
            Lease lease = client.lock("validity:stopped", OPTIONS).tryAcquire().orElseThrow();
            try {
                assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(10_000 - 100 - 2));
                clock.advance(Duration.ofSeconds(1));
                assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(9_000 - 100 - 2));
                clock.advance(Duration.ofMillis(8_897));
                assertThat(lease.isHeld()).isTrue();
                assertThat(lease.remainingValidity()).isEqualTo(Duration.ofMillis(1));
                clock.advance(Duration.ofMillis(1));
                assertThat(lease.isHeld()).as("held at the end of validity").isFalse();
                assertThat(lease.remainingValidity()).isZero();
            } finally {
                lease.release();
            }

            Lease drifty = client.lock("validity:drifty", OPTIONS.withClockDriftFactor(0.1)).tryAcquire().orElseThrow();
            try {
                assertThat(drifty.remainingValidity()).as("drift factor 0.1").isEqualTo(Duration.ofMillis(10_000 - 1_000 - 2));
            } finally {
                drifty.release();
            }
        }
    }

    @Test
    void validityOnTheSystemClockNeverExceedsTtlMinusDrift() throws Exception {
        try (Coordis client = connect(Ticker.system())) {
            for (double factor : new double[] {0.01, 0.2}) {
                Duration bound = TTL.minusNanos((long) (TTL.toNanos() * factor)).minusMillis(2);
                long before = System.nanoTime();
                try (Lease lease = client.lock("validity:system", OPTIONS.withClockDriftFactor(factor)).tryAcquire()
                        .orElseThrow()) {
                    Duration left = lease.remainingValidity();
                    Duration elapsed = Duration.ofNanos(System.nanoTime() - before);
                    assertThat(left).as("factor %s", factor).isLessThanOrEqualTo(bound)
                            .isGreaterThanOrEqualTo(bound.minus(elapsed));
                }
            }
        }
    }

    /**
     * Validity counts from the start of the attempt that succeeded, not from the first try: after waiting
     * out another holder's 600 ms, the lease still has nearly its whole validity.
     */
    @Test
    void validityStartsWithTheSuccessfulAttemptNotWithTheWait() throws Exception {
        String name = "validity:waited";
        List<RedisServer> servers = redis.servers();
        try (Coordis client = connect(Ticker.system())) {
            for (int i = 0; i < 3; i++) {
                servers.get(i).command("SET", Prefixed.key(name), "other", "PX", "600");
            }
            long start = System.nanoTime();
            Optional<Lease> got = client.lock(name, OPTIONS.withRetryDelay(Duration.ofMillis(50)))
                    .acquire(Duration.ofSeconds(5));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            Lease lease = got.orElseThrow(() -> new AssertionError("not granted after the other holder expired"));
            try {
                assertThat(waited).as("it did wait for the other holder").isGreaterThanOrEqualTo(Duration.ofMillis(500));
                Duration full = Duration.ofMillis(10_000 - 100 - 2);
                assertThat(lease.remainingValidity()).as("validity after waiting %s", waited)
                        .isGreaterThan(full.minusMillis(300)).isLessThanOrEqualTo(full);
            } finally {
                lease.release();
            }
        }
    }
}
