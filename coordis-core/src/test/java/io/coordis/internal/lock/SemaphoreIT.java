package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.inspect.SemaphoreState;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Permit;
import io.coordis.lock.Semaphore;
import io.coordis.lock.SemaphoreExample;
import io.coordis.testkit.Prefixed;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The semaphore in one JVM against a real Redis: permits are fenced leases, at most the count are held at once
 * (judged by the referee, which catches a semaphore without its permit check), waiters are served in arrival order
 * across clients, a waiter that gives up leaves nothing, shrinking revokes nothing, and the non-blocking acquire
 * parks no thread and leaves nothing behind when cancelled in the instant of a grant.
 */
class SemaphoreIT {
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
    void permitsAreFencedLeasesStoredAsPlainKeys() throws Exception {
        Semaphore pool = client.semaphore("sem:pool", 3, LockOptions.defaults().withHolderId("me"));
        Permit two = pool.tryAcquire(2).orElseThrow();
        Permit one = pool.tryAcquire().orElseThrow();
        assertThat(pool.tryAcquire()).as("all 3 permits held").isEmpty();
        assertThat(two.permits()).isEqualTo(2);
        assertThat(one.fencingToken()).isGreaterThan(two.fencingToken());
        assertThat(two.isHeld()).isTrue();
        assertThat(two.name()).isEqualTo("sem:pool");
        assertThat(two.key()).isEqualTo(Prefixed.key("sem:pool"));

        String key = Prefixed.key("sem:pool");
        assertThat(redis.server().command("ZCARD", key)).isEqualTo(2L);
        assertThat(redis.server().command("GET", Prefixed.derived("sem:pool", "permits"))).isEqualTo("3");
        assertThat(redis.server().command("GET", Prefixed.derived("sem:pool", "fence")))
                .isEqualTo(Long.toString(one.fencingToken()));
        SemaphoreLayout.HolderDetails details = SemaphoreLayout.holderDetails(
                (String) redis.server().command("HGET", Prefixed.derived("sem:pool", "holders"), two.token()));
        assertThat(details.permits()).hasValue(2);
        assertThat(details.fence()).hasValue(two.fencingToken());
        assertThat(details.holderId()).contains("me");

        assertThat(two.release()).isTrue();
        assertThat(two.release()).isFalse();
        assertThat(pool.tryAcquire(2)).isPresent();
        assertThat(one.extend(Duration.ofSeconds(5))).isTrue();
        assertThat(pool.permits()).isEqualTo(3);
    }

    @Test
    @Timeout(30)
    void theInspectorShowsHoldersFencesTtlsAndWaiters() throws Exception {
        Semaphore pool = client.semaphore("sem:seen", 2, LockOptions.defaults().withHolderId("worker 7"));
        Permit held = pool.tryAcquire(2).orElseThrow();
        CompletableFuture<Optional<Permit>> waiting = other.semaphore("sem:seen", 2).acquireAsync(Duration.ofSeconds(20));
        awaitWaiters("sem:seen", 1);
        client.semaphore("sem:idle", 4).setPermits(4);

        SemaphoreState state = client.inspector().semaphore(Prefixed.key("sem:seen")).orElseThrow();
        assertThat(state.permits()).hasValue(2);
        assertThat(state.held()).isEqualTo(2);
        assertThat(state.fencingCounter()).hasValue(held.fencingToken());
        assertThat(state.holders()).singleElement().satisfies(h -> {
            assertThat(h.token()).isEqualTo(held.token());
            assertThat(h.permits()).isEqualTo(2);
            assertThat(h.holderId()).contains("worker 7");
            assertThat(h.fence()).hasValue(held.fencingToken());
            assertThat(h.ttl()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
        });
        assertThat(state.waiters()).singleElement().satisfies(w -> {
            assertThat(w.waiting()).isLessThan(Duration.ofSeconds(20));
            assertThat(w.lapsesIn()).isPositive().isLessThanOrEqualTo(QueuedSemaphore.PLACE);
        });
        assertThat(client.inspector().semaphores(Prefixed.key("sem:*")).stream().map(SemaphoreState::name))
                .containsExactly(Prefixed.key("sem:idle"), Prefixed.key("sem:seen"));
        assertThat(client.inspector().semaphore(Prefixed.key("sem:nothing"))).isEmpty();
        assertThat(client.inspector().locks(Prefixed.key("sem:*"))).as("not shown as locks").isEmpty();
        held.release();
        waiting.get(5, TimeUnit.SECONDS).orElseThrow().release();
    }

    @Test
    @Timeout(30)
    void theReadmeExampleRuns() throws Exception {
        List<String> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        SemaphoreExample.render(client, "job-1", (job, fence) -> written.add(job + "@" + fence));
        assertThat(written).singleElement().asString().matches("job-1@[1-9][0-9]*");
        List<String> jobs = java.util.stream.IntStream.range(0, 10).mapToObj(i -> "job-" + i).toList();
        assertThat(SemaphoreExample.renderWithoutBlocking(client, jobs, (job, fence) -> written.add(job)))
                .hasSize(10).doesNotHaveDuplicates();
        assertThat(client.semaphore("renderers", 4).tryAcquire(4)).as("every permit given back").isPresent();
    }

    @Test
    void badInputIsRefusedNamingWhatToWriteInstead() {
        assertThatThrownBy(() -> client.semaphore("sem:bad", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permit count must be at least 1, was 0");
        assertThatThrownBy(() -> client.semaphore(" ", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("semaphore name must not be blank");
        Semaphore pool = client.semaphore("sem:bad", 2);
        assertThatThrownBy(() -> pool.tryAcquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits wanted must be at least 1, was 0");
        assertThatThrownBy(() -> pool.acquire(3, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("semaphore 'sem:bad' has 2 permits, so 3 can never be granted")
                .hasMessageContaining("setPermits");
        assertThatThrownBy(() -> pool.acquireAsync(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> pool.setPermits(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permit count must be at least 1");
        redis.server().command("SET", Prefixed.key("sem:string"), "x");
        assertThatThrownBy(() -> client.semaphore("sem:string", 1).tryAcquire())
                .hasMessageContaining("holds a string");
    }

    @Test
    @Timeout(30)
    void waitersAreServedInArrivalOrderAcrossClients() throws Exception {
        Semaphore mine = client.semaphore("sem:fifo", 3);
        Semaphore theirs = other.semaphore("sem:fifo", 3);
        Permit held = mine.tryAcquire(2).orElseThrow();
        // one permit is free, but a waiter for two stands first in line
        CompletableFuture<Optional<Permit>> two = theirs.acquireAsync(2, Duration.ofSeconds(20));
        awaitWaiters("sem:fifo", 1);
        assertThat(mine.tryAcquire()).as("a try does not jump the line").isEmpty();
        CompletableFuture<Optional<Permit>> one = mine.acquireAsync(1, Duration.ofSeconds(20));
        awaitWaiters("sem:fifo", 2);
        Thread.sleep(300);
        assertThat(one).as("a later waiter for one permit does not overtake").isNotDone();
        assertThat(two).isNotDone();
        held.release();
        Permit gotTwo = two.get(5, TimeUnit.SECONDS).orElseThrow();
        Permit gotOne = one.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(gotOne.fencingToken()).isGreaterThan(gotTwo.fencingToken());
        gotOne.release();
        gotTwo.release();
        assertThat(redis.server().command("ZCARD", Prefixed.derived("sem:fifo", "waiters"))).isEqualTo(0L);
    }

    @Test
    @Timeout(30)
    void aWaiterThatGivesUpLeavesNothingBehind() throws Exception {
        Semaphore pool = client.semaphore("sem:quit", 1);
        Permit held = pool.tryAcquire().orElseThrow();
        assertThat(pool.acquire(Duration.ofMillis(200))).isEmpty();
        assertNothingWaits("sem:quit");

        CompletableFuture<Optional<Permit>> cancelled = pool.acquireAsync(Duration.ofSeconds(20));
        awaitWaiters("sem:quit", 1);
        cancelled.cancel(true);
        awaitWaiters("sem:quit", 0);
        assertNothingWaits("sem:quit");

        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread blocked = new Thread(() -> {
            try {
                pool.acquire();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        blocked.start();
        awaitWaiters("sem:quit", 1);
        blocked.interrupt();
        blocked.join(5000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        awaitWaiters("sem:quit", 0);
        assertNothingWaits("sem:quit");
        held.release();
        assertThat(redis.server().command("ZCARD", Prefixed.key("sem:quit"))).isEqualTo(0L);
        assertThat(redis.server().command("HLEN", Prefixed.derived("sem:quit", "holders"))).isEqualTo(0L);
    }

    @Test
    @Timeout(30)
    void shrinkingThePermitCountRevokesNothingAndDelaysNewOnes() throws Exception {
        LockOptions shortTtl = LockOptions.defaults().withTtl(Duration.ofMillis(600));
        Semaphore pool = client.semaphore("sem:shrink", 3, shortTtl);
        List<Permit> held = new ArrayList<>(List.of(pool.tryAcquire().orElseThrow(), pool.tryAcquire().orElseThrow(),
                pool.tryAcquire().orElseThrow()));
        other.semaphore("sem:shrink", 99).setPermits(1);
        assertThat(pool.permits()).isEqualTo(1);
        CompletableFuture<Optional<Permit>> next = pool.acquireAsync(Duration.ofSeconds(20));
        Thread.sleep(1200); // two TTLs: renewals keep every held permit
        assertThat(held).allMatch(Permit::isHeld);
        assertThat(next).isNotDone();
        held.remove(0).release();
        held.remove(0).release();
        Thread.sleep(200);
        assertThat(next).as("one permit still held of a count of 1").isNotDone();
        held.remove(0).release();
        assertThat(next.get(5, TimeUnit.SECONDS)).isPresent();
        pool.setPermits(3);
        assertThat(pool.tryAcquire(2)).as("raised again").isPresent();
    }

    @Test
    @Timeout(60)
    void theAsyncAcquireParksNoThreadAndServesEveryone() throws Exception {
        Semaphore pool = client.semaphore("sem:async", 2);
        Permit first = pool.tryAcquire(2).orElseThrow();
        int n = 300;
        List<CompletableFuture<Optional<Permit>>> waiting = new ArrayList<>();
        List<CompletableFuture<Long>> served = new ArrayList<>();
        int threadsBefore = 0;
        for (int i = 0; i < n; i++) {
            if (i == 10) {
                awaitWaiters("sem:async", 10); // the first waits opened the pub/sub connection
                threadsBefore = Thread.activeCount();
            }
            CompletableFuture<Optional<Permit>> f = pool.acquireAsync(Duration.ofSeconds(50));
            waiting.add(f);
            // each holder gives its permit back at once, on the client's thread
            served.add(f.thenApply(p -> {
                Permit permit = p.orElseThrow();
                long fence = permit.fencingToken();
                CompletableFuture.runAsync(permit::release);
                return fence;
            }));
        }
        awaitWaiters("sem:async", n);
        assertThat(Thread.activeCount() - threadsBefore).as("threads started for %d more waits", n - 10).isLessThan(10);
        first.release();
        CompletableFuture.allOf(served.toArray(CompletableFuture[]::new)).get(50, TimeUnit.SECONDS);
        assertThat(served.stream().map(CompletableFuture::join).distinct().count()).isEqualTo(n);
        assertNothingWaits("sem:async");
    }

    @Test
    @Timeout(60)
    void cancellingInTheInstantOfAGrantLeavesNoPermitHeld() throws Exception {
        Semaphore pool = client.semaphore("sem:race", 1, LockOptions.defaults().withTtl(Duration.ofSeconds(20)));
        Semaphore theirs = other.semaphore("sem:race", 1);
        int granted = 0;
        for (int i = 0; i < 300; i++) {
            // a cancelled request's try may land after the previous round: its grant is given back at once
            Permit held = theirs.acquire(Duration.ofSeconds(5)).orElseThrow(() -> new AssertionError("left held"));
            CompletableFuture<Optional<Permit>> f = pool.acquireAsync(Duration.ofSeconds(10));
            held.release();
            long spin = ThreadLocalRandom.current().nextLong(0, 600_000);
            long until = System.nanoTime() + spin;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            if (!f.cancel(true)) {
                granted++;
                f.join().orElseThrow().release();
            }
            // what a cancelled request held or queued is taken out in the background: the next try finds it free
            Permit again = theirs.acquire(Duration.ofSeconds(5)).orElseThrow(
                    () -> new AssertionError("a cancelled request left the permit held"));
            again.release();
        }
        awaitHolders("sem:race", 0);
        assertNothingWaits("sem:race");
        System.out.println("cancel race: " + granted + " of 300 granted before the cancel");
    }

    @Test
    @Timeout(60)
    void atMostThePermitCountHoldAtOnceAndABrokenSemaphoreIsCaught() throws Exception {
        int permits = 3;
        try (FencedResource referee = FencedResource.start()) {
            List<Thread> threads = new ArrayList<>();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            for (Coordis c : List.of(client, other)) {
                Semaphore pool = c.semaphore("sem:count", permits);
                for (int i = 0; i < 5; i++) {
                    String name = "t" + threads.size();
                    threads.add(started(() -> {
                        try (FencedClient resource = FencedClient.connect(referee.address(), name)) {
                            while (System.nanoTime() < end) {
                                try (Permit p = pool.acquire(Duration.ofSeconds(10)).orElseThrow()) {
                                    resource.enter(p.fencingToken());
                                    Thread.sleep(3);
                                    resource.exit(p.fencingToken());
                                }
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }));
                }
            }
            for (Thread t : threads) {
                t.join();
            }
            FencedResource.Report report = referee.report();
            assertThat(report.maxInside()).as("holders at once, %s", report).isLessThanOrEqualTo(permits)
                    .isGreaterThan(1);
            assertThat(report.totalEnters()).isGreaterThan(50);
            assertThat(report.protocolErrors()).isZero();
        }
        try (FencedResource referee = FencedResource.start()) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String name = "broken" + i;
                threads.add(started(() -> {
                    try {
                        BrokenSemaphore.cycle(redis.server(), "sem:broken", permits, referee.address(), name, 40);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertThat(referee.report().maxInside()).as("the referee catches a semaphore without its permit check")
                    .isGreaterThan(permits);
        }
    }

    private static Thread started(Runnable work) {
        Thread t = new Thread(work);
        t.start();
        return t;
    }

    private static void awaitWaiters(String name, long n) throws InterruptedException {
        awaitCount("ZCARD", Prefixed.derived(name, "waiters"), n);
    }

    private static void awaitHolders(String name, long n) throws InterruptedException {
        awaitCount("ZCARD", Prefixed.key(name), n);
    }

    private static void awaitCount(String command, String key, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Object count = null;
        while (System.nanoTime() < deadline) {
            count = redis.server().command(command, key);
            if (count.equals(n)) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError(command + " " + key + " is " + count + ", not " + n);
    }

    private static void assertNothingWaits(String name) throws InterruptedException {
        awaitWaiters(name, 0);
        awaitCount("ZCARD", Prefixed.derived(name, "waiters-until"), 0);
    }
}
