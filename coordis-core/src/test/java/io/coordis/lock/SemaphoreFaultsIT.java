package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedClient;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The semaphore across processes: child JVMs and threads here hold at most the permit count at once by the
 * referee's one clock; a holder killed with SIGKILL gives its permit back within its TTL; a holder stopped past
 * its TTL learns of the loss when it runs again, and the resource refuses its stale fencing number.
 */
class SemaphoreFaultsIT {
    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration TTL = Duration.ofSeconds(1);
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
    @Timeout(120)
    void atMostThePermitCountHoldAtOnceAcrossProcesses() throws Exception {
        int permits = 3;
        String name = "semf:count";
        try (FencedResource referee = FencedResource.start();
             ChildJvm a = loop("a", name, permits, referee);
             ChildJvm b = loop("b", name, permits, referee)) {
            Semaphore pool = client.semaphore(name, permits);
            List<Thread> threads = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            for (int i = 0; i < 4; i++) {
                String me = "here" + i;
                Thread t = new Thread(() -> {
                    try (FencedClient resource = FencedClient.connect(referee.address(), me)) {
                        while (System.nanoTime() < end) {
                            try (Permit p = pool.acquire(Duration.ofSeconds(10)).orElseThrow()) {
                                resource.enter(p.fencingToken());
                                Thread.sleep(2);
                                resource.exit(p.fencingToken());
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(a.awaitLine("DONE", START)).as(a.describe()).isNotNull();
            assertThat(b.awaitLine("DONE", START)).as(b.describe()).isNotNull();
            FencedResource.Report report = referee.report();
            assertThat(report.maxInside()).as("%s", report).isLessThanOrEqualTo(permits).isGreaterThan(1);
            assertThat(report.enters().keySet()).as("every process took part")
                    .anyMatch(c -> c.startsWith("jvm" + a.pid())).anyMatch(c -> c.startsWith("jvm" + b.pid()))
                    .anyMatch(c -> c.startsWith("here"));
            assertThat(report.protocolErrors()).isZero();
        }
    }

    @Test
    @Timeout(90)
    void aKilledHolderGivesItsPermitBackWithinItsTtl() throws Exception {
        String name = "semf:kill";
        try (FencedResource referee = FencedResource.start();
             ChildJvm holder = hold("killed", name, referee)) {
            long childFence = fence(holder.awaitLine("ACQUIRED", START));
            Semaphore pool = client.semaphore(name, 1);
            assertThat(pool.tryAcquire()).as("held by the child").isEmpty();
            holder.close(); // SIGKILL
            long killed = System.nanoTime();
            Permit permit = pool.acquire(Duration.ofSeconds(5)).orElseThrow();
            Duration waited = Duration.ofNanos(System.nanoTime() - killed);
            assertThat(waited).as("permit back within TTL + 1 s").isLessThanOrEqualTo(TTL.plusSeconds(1));
            assertThat(permit.fencingToken()).isGreaterThan(childFence);
            permit.release();
        }
    }

    @Test
    @Timeout(90)
    void aHolderStoppedPastItsTtlLearnsOfTheLossAndItsFenceIsRefused() throws Exception {
        String name = "semf:pause";
        try (FencedResource referee = FencedResource.start();
             ChildJvm holder = hold("paused", name, referee)) {
            long childFence = fence(holder.awaitLine("ACQUIRED", START));
            Thread.sleep(TTL.multipliedBy(3).dividedBy(2).toMillis()); // renewed past its first TTL
            Semaphore pool = client.semaphore(name, 1);
            assertThat(pool.tryAcquire()).as("still held by the renewing child").isEmpty();

            holder.pause();
            long paused = System.nanoTime();
            Permit permit = pool.acquire(TTL.multipliedBy(3)).orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThanOrEqualTo(TTL.plusMillis(500));
            assertThat(permit.fencingToken()).isGreaterThan(childFence);
            assertThat(referee.write("here", permit.fencingToken())).isTrue();
            long more = TTL.multipliedBy(3).dividedBy(2).toNanos() - (System.nanoTime() - paused);
            if (more > 0) {
                TimeUnit.NANOSECONDS.sleep(more);
            }
            holder.resume();
            assertThat(holder.awaitLine("LOST", Duration.ofSeconds(2))).as(holder.describe())
                    .isEqualTo("LOST fence=" + childFence + " held=false");
            holder.send("WRITE");
            assertThat(holder.awaitLine("WROTE", Duration.ofSeconds(5))).as("the stale fence is refused")
                    .isEqualTo("WROTE accepted=false");
            assertThat(referee.report().staleRejections()).isEqualTo(1);
            assertThat(permit.isHeld()).isTrue();
            permit.release();
        }
    }

    private static ChildJvm loop(String id, String name, int permits, FencedResource referee) {
        return ChildJvm.start("semaphore-" + id, SemaphoreWorker.class,
                List.of("loop", redis.uri(), name, Integer.toString(permits), referee.address(), "4", "4000"));
    }

    private static ChildJvm hold(String id, String name, FencedResource referee) {
        return ChildJvm.start("semaphore-" + id, SemaphoreWorker.class,
                List.of("hold", redis.uri(), name, "1", referee.address(), Long.toString(TTL.toMillis())));
    }

    private static long fence(String line) {
        Matcher m = FENCE.matcher(line);
        if (!m.find()) {
            throw new AssertionError("no fence in '" + line + "'");
        }
        return Long.parseLong(m.group(1));
    }
}
