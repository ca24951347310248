package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder that stops (SIGSTOP, like a long GC pause) loses its lock after the TTL, learns so as soon as it
 * runs again, and carries a lower fencing number than the new holder; a holder that keeps running keeps
 * its lock well past the TTL through the watchdog.
 */
class PausedHolderIT {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern FENCE = Pattern.compile("fence=(\\d+)");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void pausedHolderLosesTheLockAfterItsTtlAndLearnsItWhenResumed() throws Exception {
        String name = "paused:holder";
        try (ChildJvm holder = ChildJvm.start("holder", HolderProcess.class,
                List.of(redis.uri(), name, Long.toString(TTL.toMillis())))) {
            long childFence = fence(holder.awaitLine("ACQUIRED", START_TIMEOUT));
            // Let the child's watchdog renew a few times: the key must outlive its first TTL.
            Thread.sleep(TTL.multipliedBy(3).dividedBy(2).toMillis());
            assertThat(holder.lines()).as(holder.describe()).noneMatch(l -> l.startsWith("LOST") || l.startsWith("NOT_HELD"));
            DistributedLock lock = client.lock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(10)));
            assertThat(lock.holder()).as("child still holds after 1.5 x TTL (renewed)").isPresent();

            holder.pause();
            long paused = System.nanoTime();
            assertThat(lock.tryAcquire()).as("lock taken while the paused holder's key is still alive").isEmpty();

            Optional<Lease> taken = lock.acquire(TTL.multipliedBy(3));
            long waited = System.nanoTime() - paused;
            assertThat(taken).as("another client gets the lock once the paused holder's TTL ran out").isPresent();
            Lease lease = taken.get();
            assertThat(Duration.ofNanos(waited)).as("the lock frees within TTL (+ margin) of the pause")
                    .isLessThanOrEqualTo(TTL.plusMillis(500));
            assertThat(lease.fencingToken()).as("new holder's fencing number").isGreaterThan(childFence);

            // Keep the child stopped past its TTL, then let it run again.
            long stoppedFor = System.nanoTime() - paused;
            long more = TTL.multipliedBy(3).dividedBy(2).toNanos() - stoppedFor;
            if (more > 0) {
                TimeUnit.NANOSECONDS.sleep(more);
            }
            holder.resume();
            long resumed = System.nanoTime();

            String lost = holder.awaitLine("LOST", Duration.ofSeconds(2));
            long lostAfter = System.nanoTime() - resumed;
            String notHeld = holder.awaitLine("NOT_HELD", Duration.ofSeconds(1));
            assertThat(lost).as("lease.lost() completed with isHeld() false").contains("held=false");
            assertThat(fence(lost)).isEqualTo(childFence).isLessThan(lease.fencingToken());
            assertThat(fence(notHeld)).isEqualTo(childFence);
            assertThat(Duration.ofNanos(lostAfter)).as("resumed holder learns of the loss promptly")
                    .isLessThan(Duration.ofSeconds(2));

            // The resumed holder's late renewal and release must not touch the new holder's lock.
            Thread.sleep(TTL.toMillis());
            holder.send("RELEASE");
            assertThat(holder.awaitLine("RELEASED", Duration.ofSeconds(5))).isEqualTo("RELEASED result=false");
            assertThat(redis.server().command("GET", Prefixed.key(name))).as("key still holds the new holder's token")
                    .isEqualTo(lease.token());
            assertThat(lease.isHeld()).isTrue();
            assertThat(lock.holder().orElseThrow().fencingToken()).hasValue(lease.fencingToken());
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void watchdogKeepsTheLockWellPastItsTtl() throws Exception {
        String name = "watchdog:held";
        try (Coordis other = TestClients.connect(redis.uri())) {
            DistributedLock mine = client.lock(name, LockOptions.defaults().withTtl(TTL));
            DistributedLock theirs = other.lock(name, LockOptions.defaults().withTtl(TTL));
            Lease lease = mine.tryAcquire().orElseThrow();
            long start = System.nanoTime();
            long until = start + TTL.multipliedBy(3).toNanos();
            int checks = 0;
            while (System.nanoTime() < until) {
                assertThat(theirs.tryAcquire()).as("taken %d ms into the hold", (System.nanoTime() - start) / 1_000_000)
                        .isEmpty();
                LockHolder h = theirs.holder().orElseThrow(() -> new AssertionError("lock vanished while held"));
                assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                assertThat(h.ttl()).isPresent();
                assertThat(h.ttl().orElseThrow()).isPositive().isLessThanOrEqualTo(TTL);
                assertThat(lease.isHeld()).isTrue();
                assertThat(lease.remainingValidity()).isPositive();
                checks++;
                Thread.sleep(50);
            }
            assertThat(checks).isGreaterThan(10);
            assertThat(lease.lost().toCompletableFuture()).isNotDone();
            assertThat(lease.release()).isTrue();
            Lease next = theirs.tryAcquire().orElseThrow(() -> new AssertionError("free after release"));
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
            next.release();
        }
    }

    private static long fence(String line) {
        Matcher m = FENCE.matcher(line);
        if (!m.find()) {
            throw new AssertionError("no fence in '" + line + "'");
        }
        return Long.parseLong(m.group(1));
    }
}
