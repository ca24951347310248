package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.lock.ChainProcess;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hand-offs inside one client without a call to Redis ({@link Handoff}): the next lease gets the lock under the
 * same token with the next number of the block its acquisition took, and each edge of that design: the lock
 * forced open during a chain, a lease lost before its release, a process stopped mid-chain past its TTL, and
 * the holder shown to operators.
 */
class LocalHandoffIT {
    private static final Pattern CALLS = Pattern.compile("calls=(\\d+)");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;
    private Coordis other;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
        other = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void aLeaseHandedOnInsideTheClientMakesNoCallAndInspectShowsItsFence() throws Exception {
        DistributedLock lock = client.lock("chain:inside");
        Lease first = lock.tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = waitInLine(lock);
        CompletableFuture<Lease> third = waitInLine(lock);

        // the first release hands over by a call, which takes a block of fencing numbers for what follows
        assertThat(first.release()).isTrue();
        Lease b = second.get(10, TimeUnit.SECONDS);
        assertThat(b.votes().get(0).detail()).isEqualTo("handed over");
        assertThat(b.token()).isNotEqualTo(first.token());
        assertThat(b.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(redis.server().command("GET", Prefixed.derived("chain:inside", "fence")))
                .as("the counter is past the block").isEqualTo(Long.toString(b.fencingToken() + Handoff.BLOCK - 1));

        redis.server().command("CONFIG", "RESETSTAT");
        assertThat(b.release()).isTrue();
        Lease c = third.get(10, TimeUnit.SECONDS);
        assertThat(c.votes().get(0).detail()).isEqualTo("handed over");
        assertThat(c.token()).as("same acquisition at Redis").isEqualTo(b.token());
        assertThat(c.fencingToken()).isEqualTo(b.fencingToken() + 1);
        assertThat(c.isHeld()).isTrue();
        assertThat(redis.server().command("GET", Prefixed.key("chain:inside"))).isEqualTo(c.token());

        // noted in the background: operators see the lease holding the lock now
        await().atMost(Duration.ofSeconds(5)).until(() -> lock.holder().orElseThrow().fencingToken().orElse(0)
                == c.fencingToken());
        LockHolder shown = lock.holder().orElseThrow();
        assertThat(shown.holderId()).hasValue(LockOptions.defaults().holderId());
        Map<String, Long> calls = commandCalls();
        assertThat(calls).as("no acquisition ran for the hand-off: %s", calls)
                .doesNotContainKeys("set", "incrby", "incr", "del");
        assertThat(calls).as("one note (and the holder reads)").containsKey("pexpire");

        // a name another client asks for meanwhile still waits its turn, and gets it after the last release
        assertThat(other.lock("chain:inside").tryAcquire()).isEmpty();
        assertThat(c.release()).isTrue();
        Lease theirs = other.lock("chain:inside").tryAcquire().orElseThrow();
        assertThat(theirs.fencingToken()).as("above every number of the block")
                .isGreaterThan(b.fencingToken() + Handoff.BLOCK - 1);
        theirs.release();
    }

    /**
     * The lock forced open while a lease of a chain holds it, and released (handed on) before anything noticed:
     * the next lease gets it without a call, but the note of that hand-off finds the lock gone and the lease is
     * lost at once; its fencing number is below the number of whoever acquires at Redis next, so the fenced
     * resource refuses its write.
     */
    @Test
    void aLockForcedOpenDuringAChainLosesTheLeaseHandedOnAndTheFenceRefusesIt() throws Exception {
        DistributedLock lock = client.lock("chain:forced");
        Lease first = lock.tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = waitInLine(lock);
        CompletableFuture<Lease> third = waitInLine(lock);
        first.release();
        Lease b = second.get(10, TimeUnit.SECONDS);

        assertThat(other.lock("chain:forced").forceUnlock("stuck")).isPresent();
        assertThat(b.release()).as("handed on without a call, so nothing saw the forced unlock yet").isTrue();
        Lease c = third.get(10, TimeUnit.SECONDS);
        assertThat(c.fencingToken()).isEqualTo(b.fencingToken() + 1);
        await().atMost(Duration.ofSeconds(2)).until(() -> !c.isHeld());
        assertThat(c.lost().toCompletableFuture().get(1, TimeUnit.SECONDS)).isSameAs(c);

        Lease theirs = other.lock("chain:forced").tryAcquire().orElseThrow();
        assertThat(theirs.fencingToken()).isGreaterThan(c.fencingToken());
        try (FencedResource resource = FencedResource.start()) {
            assertThat(resource.write("other", theirs.fencingToken())).isTrue();
            assertThat(resource.write("stale", c.fencingToken())).as("the stale lease's write").isFalse();
        }
        assertThat(c.release()).as("releasing the lost lease touches nothing").isFalse();
        assertThat(redis.server().command("GET", Prefixed.key("chain:forced"))).isEqualTo(theirs.token());
        theirs.release();
    }

    /**
     * A lease lost before its release (its renewals failed while the server stood still, past its validity) is
     * not handed on inside the client: the next one acquires at Redis, with a number above the block.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aLeaseLostBeforeItsReleaseIsNotHandedOnWithoutACall() throws Exception {
        Duration ttl = Duration.ofMillis(800);
        DistributedLock lock = client.lock("chain:lost", LockOptions.defaults().withTtl(ttl));
        Lease first = lock.tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = waitInLine(lock);
        CompletableFuture<Lease> third = waitInLine(lock);
        first.release();
        Lease b = second.get(10, TimeUnit.SECONDS);

        redis.server().command("CLIENT", "PAUSE", Long.toString(ttl.multipliedBy(2).toMillis()));
        await().atMost(Duration.ofSeconds(5)).until(() -> !b.isHeld());
        b.release();
        Lease c = third.get(20, TimeUnit.SECONDS);
        assertThat(c.token()).as("a new acquisition at Redis").isNotEqualTo(b.token());
        assertThat(c.fencingToken()).isGreaterThan(first.fencingToken() + Handoff.BLOCK);
        assertThat(c.isHeld()).isTrue();
        c.release();
    }

    /**
     * Stops {@code chain} (SIGSTOP) at a moment when one of its threads is inside the resource. A stop that lands
     * between a hand-off and the new holder's enter would let that holder enter late with its number, as any lock's
     * holder that stops between acquiring and using would: that is not what the test is about, so such a stop is
     * undone and made again a moment later. The resource's report is read after a pause that lets the messages the
     * process sent before the stop arrive.
     */
    private static void stopWithAThreadInside(ChildJvm chain, FencedResource resource) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            chain.pause();
            Thread.sleep(200);
            if (!resource.report().insideNow().isEmpty()) {
                return;
            }
            assertThat(attempt).as("a stop that finds a thread inside, within 50 tries").isLessThan(50);
            chain.resume();
            Thread.sleep(ThreadLocalRandom.current().nextLong(5, 30));
        }
    }

    /**
     * A process whose threads hand the lock on among themselves stops (SIGSTOP) for three TTLs: another client
     * gets the lock after the TTL, and once the process runs again no thread of it enters with a number of the
     * old block: the referee sees no fence regression and no two holders given one number. The threads wait
     * without a time limit, so they are still in line when the process runs again, and the stop is made when one
     * is inside (entered), not between its acquisition and its enter, where any lock's holder would enter late with
     * its number; a release that handed the lock on from the old block after the stop is caught here as a
     * regression.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aProcessStoppedMidChainPastItsTtlHandsNothingOnFromTheOldBlock() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        try (FencedResource resource = FencedResource.start()) {
            List<String> args = List.of(redis.uri(), "chain:stopped", Long.toString(ttl.toMillis()), "4", "40", "8000",
                    resource.address());
            try (ChildJvm chain = ChildJvm.start("chain", ChainProcess.class, args)) {
                chain.awaitLine("READY", Duration.ofSeconds(60));
                assertThat(resource.awaitGreetings(4, Duration.ofSeconds(30))).as(chain.describe()).isTrue();
                resource.go();
                Thread.sleep(2000); // chains running
                int enteredBefore = resource.report().totalEnters();
                assertThat(enteredBefore).as("the threads took turns before the stop").isGreaterThan(3);

                stopWithAThreadInside(chain, resource);
                long stopped = System.nanoTime();
                DistributedLock lock = client.lock("chain:stopped", LockOptions.defaults().withTtl(ttl));
                Lease mine = lock.acquire(ttl.multipliedBy(4)).orElseThrow();
                assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(ttl.multipliedBy(3));
                resource.enter("other", mine.fencingToken());
                assertThat(resource.write("other", mine.fencingToken())).isTrue();
                resource.exit("other", mine.fencingToken());
                mine.release();
                TimeUnit.NANOSECONDS.sleep(Math.max(0, ttl.multipliedBy(3).toNanos() - (System.nanoTime() - stopped)));
                chain.resume();

                String finished = chain.awaitLine("FINISHED", Duration.ofSeconds(60));
                assertThat(finished).as(chain.describe()).isNotNull();
                FencedResource.Report r = resource.report();
                System.out.println("stopped mid-chain: " + r + "\n  " + chain.lines());
                assertThat(r.fenceRegressions()).as("an enter with a number not above every earlier one: %s", r)
                        .isZero();
                assertThat(r.violations()).as("%s", r).isZero();
                assertThat(r.protocolErrors()).as("%s", r).isZero();
                assertThat(r.totalEnters()).as("the threads went on after the stop: %s", r)
                        .isGreaterThan(enteredBefore + 5);
            }
        }
    }

    /** A thread that waits in line for {@code lock} (up to 30 s), once it is waiting. */
    private static CompletableFuture<Lease> waitInLine(DistributedLock lock) {
        CompletableFuture<Lease> f = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                Optional<Lease> got = lock.acquire(Duration.ofSeconds(30));
                f.complete(got.orElseThrow(() -> new AssertionError("not granted in 30 s")));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "lock-waiter");
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING
                || waiter.getState() == Thread.State.WAITING);
        return f;
    }

    private static Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : ((String) redis.server().command("INFO", "commandstats")).split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String cmd = line.substring("cmdstat_".length(), line.indexOf(':'));
                Matcher m = CALLS.matcher(line);
                if (m.find() && !cmd.equals("info") && !cmd.startsWith("config")) {
                    calls.put(cmd, Long.parseLong(m.group(1)));
                }
            }
        }
        return calls;
    }
}
