package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Application code never runs on the client's own threads: callbacks on async acquires and on {@link Lease#lost()}
 * that block for several TTLs hold up no renewal of the client's other leases, and they run on the executor the
 * application set on the builder.
 */
class CallbackExecutorIT {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int OTHERS = 5;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void callbacksThatBlockForThreeTtlsHoldUpNoRenewalOfTheOtherLeases() throws Exception {
        LockOptions options = LockOptions.defaults().withTtl(TTL);
        CountDownLatch blockedOnLoss = new CountDownLatch(1);
        CountDownLatch blockedOnAcquire = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        try (Coordis client = TestClients.connect(redis.uri())) {
            List<Lease> others = new ArrayList<>();
            AtomicInteger othersLost = new AtomicInteger();
            for (int i = 0; i < OTHERS; i++) {
                Lease lease = client.lock("callbacks:other:" + i, options).tryAcquire().orElseThrow();
                lease.lost().thenRun(othersLost::incrementAndGet);
                others.add(lease);
            }
            Lease doomed = client.lock("callbacks:doomed", options).tryAcquire().orElseThrow();
            doomed.lost().thenRun(() -> block(blockedOnLoss, unblock));
            // held first, so that the callback is chained before the future completes (when the holder releases)
            Lease holder = client.lock("callbacks:async", options).tryAcquire().orElseThrow();
            CompletableFuture<Void> acquired = client.lock("callbacks:async", options).acquireAsync(Duration.ofSeconds(10))
                    .thenAccept(lease -> {
                        block(blockedOnAcquire, unblock);
                        lease.ifPresent(Lease::release);
                    });
            holder.release();
            // taken away behind the holder's back: its next renewal finds it gone, and lost() completes
            redis.server().command("DEL", Prefixed.key("callbacks:doomed"));
            assertThat(blockedOnLoss.await(10, TimeUnit.SECONDS)).as("the loss callback runs").isTrue();
            assertThat(blockedOnAcquire.await(10, TimeUnit.SECONDS)).as("the acquire callback runs").isTrue();

            // both callbacks block for three TTLs: a lease not renewed meanwhile would be past its validity
            long until = System.nanoTime() + TTL.multipliedBy(3).toNanos();
            while (System.nanoTime() - until < 0) {
                assertThat(othersLost).as("leases lost while the callbacks block").hasValue(0);
                Thread.sleep(100);
            }
            for (int i = 0; i < OTHERS; i++) {
                Lease lease = others.get(i);
                assertThat(lease.isHeld()).as("lease %d is held after three TTLs", i).isTrue();
                assertThat(lease.lost().toCompletableFuture()).as("lease %d is not lost", i).isNotDone();
                assertThat(redis.server().command("GET", Prefixed.key("callbacks:other:" + i)))
                        .as("lease %d is still in Redis", i).isEqualTo(lease.token());
            }
            assertThat(othersLost).hasValue(0);
            assertThat(acquired).as("the acquire callback still blocks").isNotDone();

            unblock.countDown();
            acquired.get(10, TimeUnit.SECONDS);
            others.forEach(Lease::release);
            assertThat(othersLost).as("none lost").hasValue(0);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void callbacksRunOnTheExecutorTheApplicationSet() throws Exception {
        AtomicInteger handed = new AtomicInteger();
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "app-callback-" + handed.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try (Coordis client = TestClients.builder().url(redis.uri()).callbackExecutor(pool).connect()) {
            LockOptions options = LockOptions.defaults().withTtl(TTL);
            // each future is made to wait (a holder, a renewal) so that the stage is chained before it completes
            Lease holder = client.lock("callbacks:mine:wait", options).tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiting = client.lock("callbacks:mine:wait", options)
                    .acquireAsync(Duration.ofSeconds(10));
            CompletableFuture<String> waited = waiting.thenApply(lease -> {
                lease.ifPresent(Lease::release);
                return Thread.currentThread().getName();
            });
            holder.release();
            assertThat(waited.get(10, TimeUnit.SECONDS)).startsWith("app-callback-");
            assertThat(waiting.get()).isPresent();

            Lease doomed = client.lock("callbacks:mine:doomed", options).tryAcquire().orElseThrow();
            CompletableFuture<String> lost = doomed.lost().thenApply(l -> Thread.currentThread().getName())
                    .toCompletableFuture();
            redis.server().command("DEL", Prefixed.key("callbacks:mine:doomed"));
            assertThat(lost.get(10, TimeUnit.SECONDS)).startsWith("app-callback-");

            Semaphore semaphore = client.semaphore("callbacks:mine:permits", 1, options);
            Permit first = semaphore.tryAcquire().orElseThrow();
            CompletableFuture<String> permit = semaphore.acquireAsync(Duration.ofSeconds(10)).thenApply(p -> {
                p.ifPresent(Lease::release);
                return Thread.currentThread().getName();
            });
            first.release();
            assertThat(permit.get(10, TimeUnit.SECONDS)).startsWith("app-callback-");
        } finally {
            pool.shutdownNow();
        }
        assertThat(handed).as("threads the application's executor made").hasPositiveValue();
    }

    /** Says it runs, then blocks until {@code unblock} opens. */
    private static void block(CountDownLatch running, CountDownLatch unblock) {
        running.countDown();
        try {
            unblock.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
