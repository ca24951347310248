package io.coordis.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The driver's own bookkeeping, with in-JVM locks standing in for the clients. */
class LockLoopTest {

    /** A correct in-JVM lock per process; every {@code failEvery}-th acquire throws instead. */
    private static class LocalLocking implements Locking {
        private final Semaphore permit = new Semaphore(1, true);
        private final AtomicInteger calls = new AtomicInteger();
        private final int failEvery;
        private final boolean broken;

        LocalLocking(int failEvery, boolean broken) {
            this.failEvery = failEvery;
            this.broken = broken;
        }

        @Override
        public Object tryLock(String name) {
            maybeFail();
            return broken || permit.tryAcquire() ? name : null;
        }

        @Override
        public Object lock(String name) throws InterruptedException {
            maybeFail();
            if (!broken) {
                permit.acquire();
            } else {
                Thread.yield();
            }
            return name;
        }

        private void maybeFail() {
            if (failEvery > 0 && calls.incrementAndGet() % failEvery == 0) {
                throw new IllegalStateException("node timed out");
            }
        }

        @Override
        public void unlock(Object handle) {
            if (!broken) {
                permit.release();
            }
        }

        @Override
        public void close() {
        }
    }

    @Test
    void countsCyclesPerThreadAndFindsNoViolationWithACorrectLock() throws Exception {
        try (LockLoop loop = new LockLoop(new LocalLocking(0, false), 4, "k", 1, t -> 0, LockLoop.Mode.WAIT)) {
            Map<String, Double> f = loop.run(Duration.ofMillis(300));
            assertThat(f.get("ops")).isPositive();
            assertThat(f.get("threadMinOps")).isPositive().isLessThanOrEqualTo(f.get("threadMaxOps"));
            assertThat(f.get("violations")).isZero();
            assertThat(f.get("errors")).isZero();
            assertThat(f.get("opsPerSec")).isCloseTo(f.get("ops") / f.get("seconds"), org.assertj.core.data.Percentage.withPercentage(0.1));
        }
    }

    @Test
    void handOffIsTimedFromTheStartOfAReleaseToTheNextWaitersAcquireOnly() throws Exception {
        // every release takes 2 ms before the lock is free: a waiting thread's hand-off is at least that
        LocalLocking slowRelease = new LocalLocking(0, false) {
            @Override
            public void unlock(Object handle) {
                long until = System.nanoTime() + 2_000_000;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                super.unlock(handle);
            }
        };
        try (LockLoop loop = new LockLoop(slowRelease, 3, "k", 1, t -> 0, LockLoop.Mode.WAIT)) {
            Map<String, Double> f = loop.run(Duration.ofMillis(300));
            assertThat(f.get("handoffs")).isPositive().isLessThanOrEqualTo(f.get("ops"));
            assertThat(f.get("handoffP50Us")).isGreaterThanOrEqualTo(2000);
        }
        // one thread per key never waits for another's release: no hand-off at all
        try (LockLoop loop = new LockLoop(new LocalLocking(0, false), 2, "k", 2, t -> t, LockLoop.Mode.TRY)) {
            Map<String, Double> f = loop.run(Duration.ofMillis(100));
            assertThat(f).doesNotContainKeys("handoffs", "handoffP50Us");
        }
    }

    @Test
    void aFailedReleaseIsCountedLikeAFailedAcquire() throws Exception {
        AtomicInteger releases = new AtomicInteger();
        LocalLocking failingRelease = new LocalLocking(0, false) {
            @Override
            public void unlock(Object handle) {
                super.unlock(handle); // the lock is free, but the caller hears of no answer, as after a node timeout
                if (releases.incrementAndGet() % 4 == 0) {
                    throw new IllegalStateException("no node answered the release in time");
                }
            }
        };
        try (LockLoop loop = new LockLoop(failingRelease, 2, "k", 1, t -> 0, LockLoop.Mode.WAIT)) {
            Map<String, Double> f = loop.run(Duration.ofMillis(200));
            assertThat(f.get("errors")).isPositive();
            assertThat(f.get("ops")).isGreaterThan(f.get("errors"));
        }
    }

    @Test
    void catchesALockThatLetsTwoHoldersIn() throws Exception {
        try (LockLoop loop = new LockLoop(new LocalLocking(0, true), 8, "k", 1, t -> 0, LockLoop.Mode.WAIT)) {
            assertThat(loop.run(Duration.ofMillis(500)).get("violations")).isPositive();
        }
    }

    @Test
    void failedAcquiresAreCountedNotFatalUnlessTheyOutnumberSuccesses() throws Exception {
        try (LockLoop loop = new LockLoop(new LocalLocking(3, false), 2, "k", 2, t -> t, LockLoop.Mode.TRY)) {
            Map<String, Double> f = loop.run(Duration.ofMillis(200));
            assertThat(f.get("errors")).isPositive();
            assertThat(f.get("ops")).isGreaterThan(f.get("errors"));
        }
        try (LockLoop loop = new LockLoop(new LocalLocking(1, false), 1, "k", 1, t -> 0, LockLoop.Mode.TRY)) {
            assertThatThrownBy(() -> loop.run(Duration.ofMillis(100))).hasMessageContaining("acquire attempts failed and only 0 succeeded");
        }
    }
}
