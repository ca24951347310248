package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.ProxiedClients;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.coordis.ProxiedClients.FAIL_BOUND;
import static io.coordis.ProxiedClients.FREED_BOUND;
import static io.coordis.ProxiedClients.LONG_TTL;
import static io.coordis.ProxiedClients.PAUSE;
import static io.coordis.ProxiedClients.closeWithin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lock under network and server faults: replies lost on the way back, latency, a black hole,
 * connection resets, a killed server and a flushed script cache. A client talks to Redis through a
 * {@link FaultProxy}; a second client connects directly and plays the other contender.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class LockFaultsIT {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration MARGIN = Duration.ofMillis(500);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private ProxiedClients clients;
    private FaultProxy proxy;
    private Coordis viaProxy;
    private Coordis direct;

    @BeforeEach
    void connect() {
        clients = ProxiedClients.to(redis.server());
        proxy = clients.proxy();
        viaProxy = clients.viaProxy();
        direct = clients.direct();
    }

    @AfterEach
    void close() {
        clients.close();
    }

    private static LockOptions ttl(Duration ttl, boolean renew) {
        return LockOptions.defaults().withTtl(ttl).withAutoRenew(renew);
    }

    // (a) ------------------------------------------------------------------------------------------

    @Test
    void droppedAcquireReplyFailsCleanlyAndTheLockIsFreedAtOnce() throws Exception {
        // a TTL far longer than the wait allowed below: only the release sent after the lost answer frees it
        DistributedLock mine = viaProxy.lock("drop:acquire", ttl(LONG_TTL, true));
        DistributedLock theirs = direct.lock("drop:acquire", ttl(TTL, true));

        proxy.dropNextReply();
        long start = System.nanoTime();
        Outcome outcome = outcome(mine::tryAcquire);
        assertThat(proxy.droppedReplies()).as("the acquire reply was dropped").isEqualTo(1);
        assertThat(outcome.elapsed()).isLessThanOrEqualTo(FAIL_BOUND);
        assertThat(outcome.lease()).as("a lease from an acquire whose answer never came").isEmpty();
        if (outcome.failure() != null) {
            assertThat(outcome.failure()).isInstanceOf(NodeUnavailableException.class);
        }

        Optional<Lease> taken = theirs.acquire(FREED_BOUND);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(taken).as("lock still held by the token of the acquire whose answer was lost").isPresent();
        assertThat(waited).as("lock freed soon after the failed call, not by its %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(FAIL_BOUND.plus(FREED_BOUND));
        assertThat(redis.server().command("GET", Prefixed.key("drop:acquire"))).isEqualTo(taken.get().token());
        taken.get().release();
    }

    @Test
    void clientWorksAgainAfterADroppedReply() throws Exception {
        proxy.dropNextReply();
        Outcome outcome = outcome(viaProxy.lock("drop:first", ttl(TTL, false))::tryAcquire);
        assertThat(proxy.droppedReplies()).isEqualTo(1);
        assertThat(outcome.lease()).isEmpty();

        // Later calls on other locks must get their own answers again (retrying later may succeed), and
        // until then fail only with the documented exception.
        DistributedLock later = viaProxy.lock("drop:later", ttl(TTL, false));
        List<String> failures = new ArrayList<>();
        Lease lease = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (lease == null && System.nanoTime() < deadline) {
            try {
                lease = later.tryAcquire().orElse(null);
            } catch (RuntimeException e) {
                failures.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                Thread.sleep(50);
            }
        }
        assertThat(failures).as("calls after a dropped reply failed with undocumented exceptions")
                .allMatch(f -> f.startsWith(NodeUnavailableException.class.getSimpleName()));
        assertThat(lease).as("client never worked again within 5 s after one dropped reply; failures: %s", failures)
                .isNotNull();
        assertThat(redis.server().command("GET", Prefixed.key("drop:later"))).isEqualTo(lease.token());
        assertThat(lease.release()).isTrue();
        assertThat(redis.server().command("EXISTS", Prefixed.key("drop:later"))).isEqualTo(0L);
    }

    /**
     * After a lost reply, an acquire of a busy lock must not be answered with another call's "acquired":
     * that would give this client a lock someone else holds.
     */
    @Test
    void droppedReplyNeverGrantsABusyLock() throws Exception {
        Lease held = direct.lock("drop:busy", ttl(Duration.ofSeconds(10), true)).tryAcquire().orElseThrow();

        proxy.dropNextReply();
        outcome(viaProxy.lock("drop:victim", ttl(TTL, false))::tryAcquire);
        assertThat(proxy.droppedReplies()).isEqualTo(1);

        DistributedLock busy = viaProxy.lock("drop:busy", ttl(TTL, false));
        DistributedLock free = viaProxy.lock("drop:free", ttl(TTL, false));
        CompletableFuture<Outcome> busyAttempt = CompletableFuture.supplyAsync(() -> outcome(busy::tryAcquire));
        Thread.sleep(100);
        Outcome freeAttempt = outcome(free::tryAcquire);
        Outcome busyResult = busyAttempt.get(10, TimeUnit.SECONDS);

        assertThat(busyResult.lease())
                .as("client got lock 'drop:busy' while another client holds it (free: %s)", freeAttempt)
                .isEmpty();
        assertThat(redis.server().command("GET", Prefixed.key("drop:busy"))).isEqualTo(held.token());
        freeAttempt.lease().ifPresent(Lease::close);
        held.release();
    }

    // (b) ------------------------------------------------------------------------------------------

    @Test
    void droppedReleaseReplyStillFreesTheLock() throws Exception {
        Lease lease = viaProxy.lock("drop:release", ttl(TTL, false)).tryAcquire().orElseThrow();
        DistributedLock theirs = direct.lock("drop:release", ttl(TTL, false));
        assertThat(theirs.tryAcquire()).isEmpty();

        proxy.dropNextReply();
        long start = System.nanoTime();
        Outcome released = outcome(() -> Optional.of(lease.release()));
        assertThat(proxy.droppedReplies()).isEqualTo(1);
        assertThat(released.elapsed()).isLessThanOrEqualTo(FAIL_BOUND);
        if (released.failure() != null) {
            assertThat(released.failure()).isInstanceOf(NodeUnavailableException.class);
        }
        assertThat(lease.isHeld()).isFalse();

        Optional<Lease> taken = theirs.acquire(TTL.plus(MARGIN).multipliedBy(2));
        assertThat(taken).isPresent();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThanOrEqualTo(TTL.plus(MARGIN));
        assertThat(taken.get().fencingToken()).isGreaterThan(lease.fencingToken());
        taken.get().release();
    }

    @Test
    void aHandOffWhoseAnswerIsLostFailsTheReleaseAndTheNextLocalWaiterGetsTheLockAtRedisAtOnce() throws Exception {
        DistributedLock lock = viaProxy.lock("lost:handoff", ttl(LONG_TTL, false));
        // loaded beforehand, so the dropped reply is the hand-off's own and not a NOSCRIPT before it ran
        redis.server().command("SCRIPT", "LOAD", SingleNodeLock.ACQUIRE.source());
        Lease first = lock.tryAcquire().orElseThrow();

        // the hand-off runs at Redis (the lock goes to a token nobody will claim), but its answer is lost
        CompletableFuture<Optional<Lease>> next = waitInLine(lock);
        proxy.dropNextReply();
        long start = System.nanoTime();
        Outcome released = outcome(() -> Optional.of(first.release()));
        assertThat(proxy.droppedReplies()).isEqualTo(1);
        assertThat(released.failure()).as("release answered %s", released.value())
                .isInstanceOf(NodeUnavailableException.class);
        assertThat(released.elapsed()).isLessThanOrEqualTo(FAIL_BOUND);

        // the waiter's turn comes without the lost gift: it acquires at Redis once the unclaimed hand-off is
        // released, long before its TTL, and never shares the lock with it
        Lease got = next.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("the unclaimed hand-off was released, not left to its %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(FAIL_BOUND.plus(FREED_BOUND));
        assertThat(got.votes().get(0).detail()).as("acquired at Redis, not handed over").isNotEqualTo("handed over");
        assertThat(got.fencingToken()).as("the hand-off ran (it took a block of fencing numbers) before the waiter acquired")
                .isEqualTo(first.fencingToken() + Handoff.BLOCK + 1);
        assertThat(redis.server().command("GET", Prefixed.key("lost:handoff"))).isEqualTo(got.token());
        got.release();
    }

    /**
     * A hand-off that never ran: the server holds it up ({@code CLIENT PAUSE}) past the command timeout, and
     * the connection it waits on is closed, so it never runs. The lock is still the releaser's, and is freed
     * for the waiter as soon as the server answers again, not after its TTL.
     */
    @Test
    void aHandOffHeldUpPastTheCommandTimeoutLetsGoOfTheReleasersToken() throws Exception {
        DistributedLock lock = viaProxy.lock("paused:handoff", ttl(LONG_TTL, false));
        Lease first = lock.tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> next = waitInLine(lock);

        long start = System.nanoTime();
        redis.server().command("CLIENT", "PAUSE", Long.toString(PAUSE.toMillis()));
        Outcome released = outcome(() -> Optional.of(first.release()));
        assertThat(released.failure()).as("release answered %s", released.value())
                .isInstanceOf(NodeUnavailableException.class);

        Lease got = next.get(30, TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("the releaser's token was released once the server answered, not left to its %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(PAUSE.plus(FREED_BOUND));
        assertThat(got.fencingToken()).as("the hand-off never ran: no fencing number between the two")
                .isEqualTo(first.fencingToken() + 1);
        assertThat(redis.server().command("GET", Prefixed.key("paused:handoff"))).isEqualTo(got.token());
        got.release();
    }

    /** Likewise a plain release (nobody waits in this client) held up past the command timeout is sent again. */
    @Test
    void aReleaseHeldUpPastTheCommandTimeoutIsSentAgain() throws Exception {
        Lease lease = viaProxy.lock("paused:release", ttl(LONG_TTL, false)).tryAcquire().orElseThrow();
        DistributedLock theirs = direct.lock("paused:release", ttl(TTL, false));

        long start = System.nanoTime();
        redis.server().command("CLIENT", "PAUSE", Long.toString(PAUSE.toMillis()));
        Outcome released = outcome(() -> Optional.of(lease.release()));
        assertThat(released.failure()).as("release answered %s", released.value())
                .isInstanceOf(NodeUnavailableException.class);

        Optional<Lease> taken = theirs.acquire(FREED_BOUND.multipliedBy(2));
        assertThat(taken).as("lock still held by a release that never ran").isPresent();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("released once the server answered, not left to its %s TTL", LONG_TTL)
                .isLessThanOrEqualTo(PAUSE.plus(FREED_BOUND));
        assertThat(taken.get().fencingToken()).isEqualTo(lease.fencingToken() + 1);
        taken.get().release();
    }

    /** Another thread waits for {@code lock}; returns once it is in line (parked) behind the holder. */
    private static CompletableFuture<Optional<Lease>> waitInLine(DistributedLock lock) {
        CompletableFuture<Optional<Lease>> f = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                f.complete(lock.acquire(TTL.plus(MARGIN).multipliedBy(4)));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "lock-waiter");
        waiter.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING
                || waiter.getState() == Thread.State.WAITING);
        return f;
    }

    // (c) ------------------------------------------------------------------------------------------

    @Test
    void latencyBelowTheCommandTimeoutIsHarmless() throws Exception {
        Coordis patient = TestClients.builder().url(proxy.uri()).commandTimeout(Duration.ofSeconds(1)).connect();
        try {
            proxy.latency(Duration.ofMillis(80));
            DistributedLock lock = patient.lock("slow", ttl(TTL, true));
            DistributedLock theirs = direct.lock("slow", ttl(TTL, true));

            Lease lease = lock.tryAcquire().orElseThrow();
            assertThat(lease.extend(TTL)).isTrue();
            assertThat(lock.holder().orElseThrow().fencingToken()).hasValue(lease.fencingToken());
            Thread.sleep(TTL.multipliedBy(3).dividedBy(2).toMillis());
            assertThat(lease.isHeld()).as("renewal keeps up through latency").isTrue();
            assertThat(lease.release()).isTrue();

            // Waiting through the proxy: the direct client releases, the slow waiter is woken and gets it.
            Lease theirLease = theirs.tryAcquire().orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return lock.acquire(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(500);
            theirLease.release();
            Lease second = waiter.get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(second.fencingToken()).isGreaterThan(theirLease.fencingToken());
            assertThat(second.release()).isTrue();
            assertThat(lease.lost().toCompletableFuture()).isNotDone();
            Thread.sleep(500); // let the release notification pass before closing (see closeWhileNotificationsArrive...)
        } finally {
            closeWithin(patient, Duration.ofSeconds(10));
        }
    }

    /**
     * Closing a client must not hang while release notifications reach it: a waiter is subscribed to a busy
     * lock's release channel and bursts of notifications keep arriving while the client closes. Several
     * rounds, each with a fresh client, because the close has to meet a delivery in progress.
     */
    @Test
    void closeWhileReleaseNotificationsArriveDoesNotHang() throws Exception {
        Lease held = direct.lock("close:busy", ttl(Duration.ofSeconds(30), true)).tryAcquire().orElseThrow();
        String channel = null;
        AtomicBoolean flooding = new AtomicBoolean(true);
        List<Thread> flooders = new ArrayList<>();
        try {
            for (int round = 1; round <= 5; round++) {
                Coordis waiting = TestClients.connect(redis.uri());
                Thread waiter = new Thread(() -> {
                    try {
                        waiting.lock("close:busy").acquire(Duration.ofSeconds(20)).ifPresent(Lease::close);
                    } catch (InterruptedException | RuntimeException e) {
                        // the client is closed under it
                    }
                }, "close-waiter-" + round);
                waiter.setDaemon(true);
                waiter.start();
                if (channel == null) {
                    channel = await().atMost(Duration.ofSeconds(5)).until(() -> {
                        List<?> channels = (List<?>) redis.server().command("PUBSUB", "CHANNELS",
                                "*" + Prefixed.key("close:busy") + "*");
                        return channels.isEmpty() ? null : (String) channels.get(0);
                    }, c -> c != null);
                    for (int i = 0; i < 2; i++) {
                        flooders.add(flood(channel, flooding));
                    }
                }
                String ch = channel;
                await().atMost(Duration.ofSeconds(5)).until(() ->
                        (Long) ((List<?>) redis.server().command("PUBSUB", "NUMSUB", ch)).get(1) > 0);
                Thread.sleep(100);
                closeWithin(waiting, Duration.ofSeconds(10));
            }
        } finally {
            flooding.set(false);
            for (Thread t : flooders) {
                t.join(5000);
            }
        }
        assertThat(held.release()).isTrue();
    }

    /** Publishes to {@code channel} in pipelined bursts until {@code flooding} turns false. */
    private static Thread flood(String channel, AtomicBoolean flooding) {
        Thread t = new Thread(() -> {
            try (RespClient r = redis.server().client()) {
                while (flooding.get()) {
                    for (int i = 0; i < 500; i++) {
                        r.send("PUBLISH", channel, "released");
                    }
                    for (int i = 0; i < 500; i++) {
                        r.read();
                    }
                }
            }
        }, "close-flooder");
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void blackholedCallsFailWithinTheCommandTimeoutAndNeverHang() throws Exception {
        // a TTL far beyond the time the failing calls below take, so the lease is still held (not lost) when
        // release is tried: release of a held lease must report the black hole, not answer false
        DistributedLock lock = viaProxy.lock("hole", ttl(Duration.ofSeconds(30), false));
        Lease lease = lock.tryAcquire().orElseThrow();
        proxy.blackhole();
        try {
            DistributedLock other = viaProxy.lock("hole:other", ttl(TTL, false));
            assertFailsInTime("tryAcquire", other::tryAcquire);
            // a wait rides a transient failure out until it is spent, then reports it; shorter than one try here
            assertFailsInTime("acquire(wait)", () -> other.acquire(Duration.ofMillis(100)));
            Outcome waited = outcome(() -> other.acquire(Duration.ofSeconds(2)));
            assertThat(waited.failure()).as("acquire(2 s) through a black hole").isInstanceOf(NodeUnavailableException.class)
                    .hasMessageContaining("lock 'hole:other'");
            assertThat(waited.elapsed()).as("tried again until the wait was spent")
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(2)).isLessThan(Duration.ofSeconds(2).plus(FAIL_BOUND));
            assertFailsInTime("holder", lock::holder);
            assertFailsInTime("extend", () -> Optional.of(lease.extend(TTL)));
            assertFailsInTime("release", () -> Optional.of(lease.release()));
        } finally {
            proxy.resetAll();
            proxy.pass();
        }
    }

    @Test
    void resetConnectionsAfterABlackholeRecover() throws Exception {
        DistributedLock lock = viaProxy.lock("reset", ttl(TTL, false));
        proxy.blackhole();
        assertFailsInTime("tryAcquire", lock::tryAcquire);
        proxy.resetAll();
        proxy.pass();

        Lease lease = await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> {
            try {
                return lock.tryAcquire().orElse(null);
            } catch (NodeUnavailableException e) {
                return null;
            }
        }, l -> l != null);
        assertThat(redis.server().command("GET", Prefixed.key("reset"))).isEqualTo(lease.token());
        assertThat(lease.release()).isTrue();
    }

    @Test
    void renewalSurvivesConnectionResets() throws Exception {
        // TTL 2 s: renewals every ~670 ms, each connection reset every 300 ms; a reconnect plus a renewal must fit
        // between resets at least once per validity, which a loaded 2-core machine does not always manage in 1 s
        Lease lease = viaProxy.lock("reset:renew", ttl(Duration.ofSeconds(2), true)).tryAcquire().orElseThrow();
        long until = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (System.nanoTime() < until) {
            proxy.resetAll();
            Thread.sleep(300);
            assertThat(lease.isHeld()).as("lease lost after a connection reset it could recover from").isTrue();
            assertThat(direct.lock("reset:renew").tryAcquire()).isEmpty();
        }
        assertThat(redis.server().command("GET", Prefixed.key("reset:renew"))).isEqualTo(lease.token());
        assertThat(lease.release()).isTrue();
    }

    // (d) ------------------------------------------------------------------------------------------

    @Test
    void killedRedisLosesTheLeaseByItsValidityDeadline() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        try (RedisServer own = RedisServer.start();
             Coordis client = TestClients.builder().url(own.uri()).commandTimeout(Duration.ofMillis(300)).connect()) {
            Lease lease = client.lock("killed", ttl(ttl, true)).tryAcquire().orElseThrow();
            CompletableFuture<Long> lostAt = new CompletableFuture<>();
            lease.lost().thenRun(() -> lostAt.complete(System.nanoTime()));
            Thread.sleep(ttl.toMillis() * 3 / 2);
            assertThat(lease.isHeld()).as("renewed past its first TTL").isTrue();

            long killedAt = System.nanoTime();
            long deadline = killedAt + lease.remainingValidity().toNanos();
            own.kill();

            long notHeldAt = 0;
            while (System.nanoTime() - killedAt < ttl.plusSeconds(2).toNanos()) {
                if (!lease.isHeld()) {
                    notHeldAt = System.nanoTime();
                    break;
                }
                Thread.sleep(2);
            }
            assertThat(notHeldAt).as("isHeld() still true long after Redis died").isNotZero();
            assertThat(Duration.ofNanos(notHeldAt - deadline)).as("isHeld() false by the validity deadline")
                    .isLessThanOrEqualTo(Duration.ofMillis(50));
            long lost = lostAt.get(ttl.plusSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(Duration.ofNanos(lost - deadline)).as("lost() completes by the validity deadline")
                    .isLessThanOrEqualTo(Duration.ofMillis(200));
            assertThat(Duration.ofNanos(lost - killedAt)).isLessThanOrEqualTo(ttl.plusMillis(200));
            assertThat(lease.remainingValidity()).isZero();
        }
    }

    // (e) ------------------------------------------------------------------------------------------

    @Test
    void scriptFlushBetweenCallsIsTransparent() throws Exception {
        RedisServer server = redis.server();
        DistributedLock lock = direct.lock("flushed", ttl(TTL, true));

        server.command("SCRIPT", "FLUSH");
        Lease first = lock.tryAcquire().orElseThrow();
        server.command("SCRIPT", "FLUSH");
        assertThat(lock.holder().orElseThrow().fencingToken()).hasValue(first.fencingToken());
        server.command("SCRIPT", "FLUSH");
        assertThat(first.extend(TTL.multipliedBy(2))).isTrue();
        assertThat((Long) server.command("PTTL", Prefixed.key("flushed"))).isGreaterThan(TTL.toMillis());
        server.command("SCRIPT", "FLUSH");
        assertThat(first.release()).isTrue();
        assertThat(server.command("EXISTS", Prefixed.key("flushed"))).isEqualTo(0L);

        server.command("SCRIPT", "FLUSH");
        Lease second = lock.tryAcquire().orElseThrow();
        assertThat(second.fencingToken()).as("the resent script ran exactly once").isEqualTo(first.fencingToken() + 1);
        server.command("SCRIPT", "FLUSH");
        Thread.sleep(TTL.toMillis());
        assertThat(second.isHeld()).as("renewal after a flush").isTrue();
        assertThat(second.release()).isTrue();
    }

    // ----------------------------------------------------------------------------------------------

    private interface Call {
        Optional<?> call() throws Exception;
    }

    /** What one call did: returned a value (possibly empty) or threw, and how long it took. */
    private record Outcome(Optional<Lease> lease, Object value, Throwable failure, Duration elapsed) {
    }

    private static Outcome outcome(Call call) {
        long start = System.nanoTime();
        try {
            Optional<?> v = call.call();
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            Optional<Lease> lease = v.filter(Lease.class::isInstance).map(Lease.class::cast);
            return new Outcome(lease, v.orElse(null), null, took);
        } catch (Exception e) {
            return new Outcome(Optional.empty(), null, e, Duration.ofNanos(System.nanoTime() - start));
        }
    }

    /** Runs {@code call} on another thread so a hang cannot stall the test, and checks it failed in time. */
    private static void assertFailsInTime(String what, Call call) throws Exception {
        CompletableFuture<Outcome> f = CompletableFuture.supplyAsync(() -> outcome(call));
        Outcome o;
        try {
            o = f.get(FAIL_BOUND.plusSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " hung through a black hole for more than " + FAIL_BOUND.plusSeconds(10));
        } catch (ExecutionException e) {
            throw new AssertionError(what + " failed unexpectedly", e.getCause());
        }
        assertThat(o.failure()).as("%s through a black hole answered %s", what, o.value())
                .isInstanceOf(NodeUnavailableException.class);
        assertThat(o.elapsed()).as("%s took too long to fail", what).isLessThanOrEqualTo(FAIL_BOUND);
        assertThat(((CoordisException) o.failure()).node()).isPresent();
    }
}
