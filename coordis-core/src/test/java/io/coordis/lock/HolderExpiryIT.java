package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Keyspace;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a name leaves in Redis, read with plain commands: the holder details, the read holds and a semaphore's keys
 * live and die with the hold (the same expiry as the lock key, or a little past it), nothing lasts after a release
 * but the fencing counter, and a try that finds the lock busy and will not wait changes nothing at all (compared
 * key by key: type, value, expiry), where a caller that waits does leave its marker.
 */
class HolderExpiryIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** Renewal off, so nothing moves an expiry between two reads but the call under test. */
    private static final LockOptions STILL = LockOptions.defaults().withTtl(Duration.ofSeconds(60)).withAutoRenew(false);
    /** How far past the lock key a key kept with it may expire: the same call sets both, on one clock. */
    private static final long SAME_CALL_MS = 50;

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
    @Timeout(30)
    void theHolderDetailsFollowTheLockThroughAcquireExtendAndRelease() {
        String name = "plain-hx";
        Lease lease = client.lock(name, STILL).tryAcquire().orElseThrow();
        assertExpiresWith(Prefixed.derived(name, "holder"), Prefixed.key(name));
        assertThat(pttl(Prefixed.derived(name, "holder"))).isPositive().isLessThanOrEqualTo(60_000);

        assertThat(lease.extend(Duration.ofSeconds(120))).isTrue();
        assertThat(pttl(Prefixed.key(name))).isGreaterThan(60_000);
        assertExpiresWith(Prefixed.derived(name, "holder"), Prefixed.key(name));

        assertThat(lease.release()).isTrue();
        assertOnlyTheFenceLasts(name);
        assertNothingButTheFence(name);

        Lease after = client.lock(name, STILL).tryAcquire().orElseThrow();
        assertThat(after.releaseAfter(Duration.ofSeconds(3))).isTrue();
        assertThat(pttl(Prefixed.key(name))).isPositive().isLessThanOrEqualTo(3000);
        assertExpiresWith(Prefixed.derived(name, "holder"), Prefixed.key(name));
        assertOnlyTheFenceLasts(name);
    }

    @Test
    @Timeout(30)
    void locksHandedOnInsideOneClientLeaveOnlyTheFence() throws Exception {
        String name = "handoff-hx";
        DistributedLock lock = client.lock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(10)));
        List<CompletableFuture<Lease>> waiting = new ArrayList<>();
        Lease first = lock.tryAcquire().orElseThrow();
        for (int i = 0; i < 5; i++) {
            waiting.add(lock.acquireAsync());
        }
        first.release();
        for (CompletableFuture<Lease> next : waiting) {
            Lease lease = next.get(10, TimeUnit.SECONDS);
            assertThat(expiresAt(Prefixed.derived(name, "holder"))).as("held: the details expire").isPositive();
            lease.release();
        }
        assertOnlyTheFenceLasts(name);
        assertNothingButTheFence(name);
    }

    @Test
    @Timeout(30)
    void aBusyTryThatWillNotWaitWritesNothing() throws Exception {
        String name = "busy-hx";
        Lease held = client.lock(name, STILL).tryAcquire().orElseThrow();
        Keyspace before = Keyspace.of(redis.server(), Prefixed.key(name));

        DistributedLock theirs = other.lock(name, STILL);
        assertThat(theirs.tryAcquire()).isEmpty();
        assertThat(theirs.acquire(Duration.ZERO)).isEmpty();
        assertThat(theirs.tryAcquireAsync().get(10, TimeUnit.SECONDS)).isEmpty();
        assertThat(Keyspace.of(redis.server(), Prefixed.key(name))).isEqualTo(before);

        // a caller that waits does mark that it waits: the comparison above would have caught that
        assertThat(theirs.acquire(Duration.ofMillis(200))).isEmpty();
        assertThat(Keyspace.of(redis.server(), Prefixed.key(name))).isNotEqualTo(before);
        assertThat(pttl(Prefixed.derived(name, "released"))).isPositive();
        held.release();
        assertOnlyTheFenceLasts(name);
    }

    @Test
    @Timeout(60)
    void readHoldsAndAWaitingWriterExpireWithTheLockAndBusyTriesWriteNothing() throws Exception {
        String name = "rw-hx";
        ReadWriteLock rw = client.readWriteLock(name, STILL);
        Lease one = rw.readLock().tryAcquire().orElseThrow();
        Lease two = rw.readLock().tryAcquire().orElseThrow();
        assertExpiresWith(Prefixed.derived(name, "readers"), Prefixed.key(name));
        assertExpiresWith(Prefixed.derived(name, "readers:details"), Prefixed.key(name));
        assertThat(two.extend(Duration.ofSeconds(120))).isTrue();
        assertThat(pttl(Prefixed.key(name))).isGreaterThan(60_000);
        assertExpiresWith(Prefixed.derived(name, "readers"), Prefixed.key(name));
        assertExpiresWith(Prefixed.derived(name, "readers:details"), Prefixed.key(name));

        Keyspace before = Keyspace.of(redis.server(), Prefixed.key(name));
        assertThat(other.readWriteLock(name, STILL).writeLock().tryAcquire()).isEmpty();
        assertThat(other.lock(name, STILL).tryAcquire()).isEmpty();
        assertThat(Keyspace.of(redis.server(), Prefixed.key(name))).as("no 'waiting-writer', no marker").isEqualTo(before);

        // a writer that waits marks it in the holder details, which lapse with the mark
        CompletableFuture<Optional<Lease>> writer = other.readWriteLock(name, STILL).writeLock()
                .acquireAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.server().command("HGET",
                Prefixed.derived(name, "holder"), "waiting-writer") != null);
        // -2 (lapsed already, on a stalled machine) is fine; -1, no expiry, is not
        assertThat(pttl(Prefixed.derived(name, "holder"))).isNotEqualTo(-1L).isLessThanOrEqualTo(2000);
        assertThat(one.release()).isTrue();
        assertExpiresWith(Prefixed.derived(name, "readers"), Prefixed.key(name));
        assertThat(two.release()).isTrue();
        Lease written = writer.get(20, TimeUnit.SECONDS).orElseThrow();
        assertExpiresWith(Prefixed.derived(name, "holder"), Prefixed.key(name));

        Keyspace held = Keyspace.of(redis.server(), Prefixed.key(name));
        assertThat(client.readWriteLock(name, STILL).readLock().tryAcquire()).isEmpty();
        assertThat(Keyspace.of(redis.server(), Prefixed.key(name))).isEqualTo(held);

        assertThat(written.release()).isTrue();
        assertOnlyTheFenceLasts(name);
    }

    @Test
    @Timeout(60)
    void aSemaphoreLeavesOnlyItsFenceWhenIdleAndABusyTryWritesNothing() throws Exception {
        String name = "sem-hx";
        Semaphore pool = client.semaphore(name, 2, STILL);
        Permit a = pool.tryAcquire().orElseThrow();
        Permit b = pool.tryAcquire().orElseThrow();
        assertOnlyTheFenceLasts(name);
        assertThat(pttl(Prefixed.key(name))).as("past the last holder").isGreaterThan(59_000);
        assertThat(expiresAt(Prefixed.derived(name, "permits"))).isEqualTo(expiresAt(Prefixed.key(name)));

        Keyspace before = Keyspace.of(redis.server(), Prefixed.key(name));
        assertThat(other.semaphore(name, 2, STILL).tryAcquire()).isEmpty();
        assertThat(Keyspace.of(redis.server(), Prefixed.key(name))).isEqualTo(before);

        pool.setPermits(2);
        assertThat(expiresAt(Prefixed.derived(name, "permits"))).as("kept while in use")
                .isEqualTo(expiresAt(Prefixed.key(name)));

        CompletableFuture<Optional<Permit>> waiting = other.semaphore(name, 2, STILL).acquireAsync(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(20)).until(() -> (Long) redis.server().command("ZCARD",
                Prefixed.derived(name, "waiters")) == 1L);
        assertOnlyTheFenceLasts(name);
        assertThat(b.extend(Duration.ofSeconds(120))).isTrue();
        assertThat(pttl(Prefixed.derived(name, "waiters"))).as("moved along with the holder").isGreaterThan(110_000);
        assertOnlyTheFenceLasts(name);

        assertThat(a.release()).isTrue();
        Permit c = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
        assertThat(b.release()).isTrue();
        assertThat(c.release()).isTrue();
        assertNothingButTheFence(name); // idle: the count goes too

        Permit again = client.semaphore(name, 3, STILL).tryAcquire(3).orElseThrow();
        assertThat(redis.server().command("GET", Prefixed.derived(name, "permits"))).isEqualTo("3");
        again.release();
    }

    /** Every key of {@code name} but its fencing counter (being redesigned elsewhere) expires. */
    private static void assertOnlyTheFenceLasts(String name) {
        Keyspace now = Keyspace.of(redis.server(), Prefixed.key(name));
        assertThat(now.lasting()).as("keys without expiry:\n%s", now).isSubsetOf(Set.of(Prefixed.derived(name, "fence")));
    }

    /** Nothing of {@code name} is left but its fencing counter, if that is there. */
    private static void assertNothingButTheFence(String name) {
        Keyspace now = Keyspace.of(redis.server(), Prefixed.key(name));
        assertThat(now.keys().keySet()).as("keys left:\n%s", now).isSubsetOf(Set.of(Prefixed.derived(name, "fence")));
    }

    /** {@code key} expires when {@code lock} does, or a little after (never before it unless gone). */
    private static void assertExpiresWith(String key, String lock) {
        long at = expiresAt(key);
        long lockAt = expiresAt(lock);
        assertThat(lockAt).as("%s expires", lock).isPositive();
        assertThat(at).as("%s expires with %s", key, lock).isPositive().isBetween(lockAt - SAME_CALL_MS, lockAt + SAME_CALL_MS);
    }

    private static long expiresAt(String key) {
        return Keyspace.expiresAt(redis.server(), key);
    }

    private static long pttl(String key) {
        return (Long) redis.server().command("PTTL", key);
    }
}
