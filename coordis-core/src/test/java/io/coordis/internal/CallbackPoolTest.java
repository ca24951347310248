package io.coordis.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CallbackPoolTest {
    private static final Duration STALL = Duration.ofNanos(CallbackPool.STALL_NANOS);

    private final ManualTimer timer = new ManualTimer();
    private final AtomicInteger threads = new AtomicInteger();
    private final CallbackPool pool = new CallbackPool(r -> {
        Thread t = new Thread(r, "callback-test-" + threads.incrementAndGet());
        t.setDaemon(true);
        return t;
    }, timer);

    @Test
    void quickCallbacksShareOneThread() throws Exception {
        CountDownLatch ran = new CountDownLatch(1_000);
        for (int i = 0; i < 1_000; i++) {
            pool.execute(ran::countDown);
        }
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(threads).as("a cached pool would start a thread whenever none is idle at that instant").hasValue(1);
        timer.advance(STALL); // the check finds nothing waiting and stops
        assertThat(timer.pending()).isZero();
        pool.shutdown();
    }

    @Test
    void aCallbackThatBlocksGetsCompanyAfterAStallAndTheOthersRun() throws Exception {
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        pool.execute(() -> {
            blocking.countDown();
            await(unblock);
        });
        assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
        CountDownLatch behind = new CountDownLatch(1);
        pool.execute(behind::countDown);
        assertThat(behind.await(100, TimeUnit.MILLISECONDS)).as("waits while the only thread blocks").isFalse();

        timer.advance(STALL); // a check: nothing completed since it started, a task waits
        assertThat(behind.await(10, TimeUnit.SECONDS)).as("run by a second thread").isTrue();
        assertThat(threads).hasValue(2);

        unblock.countDown();
        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
