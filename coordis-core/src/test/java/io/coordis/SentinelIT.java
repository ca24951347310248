package io.coordis;

import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.SentinelGroup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redis-sentinel://} URLs: locks land on the master the sentinels name, also after a failover, for a client
 * connected after it and for one connected before it.
 */
class SentinelIT {
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    /** From the promotion, for Lettuce to learn the new master from the sentinels and reconnect (about 1 s here). */
    private static final Duration EXISTING_CLIENT_BOUND = Duration.ofSeconds(30);

    private static String valueOn(RedisServer server, String key) {
        try (RespClient client = RespClient.connect(server)) {
            return (String) client.command("GET", key);
        }
    }

    @Test
    void lockAcquiredThroughTheSentinelUrlIsOnTheMaster() {
        try (SentinelGroup group = SentinelGroup.start(1, 3);
             Coordis coordis = TestClients.connect(group.sentinelUri())) {
            assertThat(coordis.address()).contains("mymaster").contains(group.sentinel(0).address());
            try (Lease lease = coordis.lock("orders:sentinel").tryAcquire().orElseThrow()) {
                assertThat(valueOn(group.master(), lease.key())).isEqualTo(lease.token());
                assertThat(lease.release()).isTrue();
                assertThat(valueOn(group.master(), lease.key())).isNull();
            }
        }
    }

    @Test
    void passwordInTheSentinelUrlIsUsedForTheMaster() {
        try (SentinelGroup group = SentinelGroup.start(0, 1, "secured", RedisServer.builder().requirePass("sentinel-Pw-7"));
             Coordis coordis = TestClients.connect(group.sentinelUri())) {
            assertThat(group.sentinelUri()).startsWith("redis-sentinel://:sentinel-Pw-7@").endsWith("#secured");
            try (Lease lease = coordis.lock("orders:secured").tryAcquire().orElseThrow()) {
                assertThat(valueOn(group.master(), lease.key())).isEqualTo(lease.token());
            }
        }
    }

    @Test
    void afterAFailoverNewAndExistingClientsLockOnThePromotedReplica() {
        try (SentinelGroup group = SentinelGroup.start(2, 3);
             Coordis existing = TestClients.builder().url(group.sentinelUri()).commandTimeout(Duration.ofSeconds(1))
                     .connect()) {
            RedisServer old = group.master();
            // a TTL that outlasts both bounds, so the lease is still valid when the client is back
            Lease before = existing.lock("failover:before", LockOptions.defaults().withTtl(Duration.ofMinutes(2)))
                    .tryAcquire().orElseThrow();
            assertThat(valueOn(old, before.key())).isEqualTo(before.token());
            try (RespClient c = RespClient.connect(old)) {
                assertThat((Long) c.command("WAIT", "2", "2000")).isEqualTo(2L);
            }

            long killedAt = System.nanoTime();
            old.kill();
            RedisServer promoted = group.awaitFailover(old, FAILOVER_BOUND);
            System.out.printf("SentinelIT: sentinels promoted %s %d ms after kill -9 of %s%n",
                    promoted.address(), millisSince(killedAt), old.address());
            assertThat(promoted).isNotSameAs(old);
            assertThat(old.isRunning()).isFalse();
            assertThat(valueOn(promoted, before.key()))
                    .as("the lease written before the failover was replicated (WAIT) to the promoted replica")
                    .isEqualTo(before.token());

            try (Coordis fresh = TestClients.connect(group.sentinelUri());
                 Lease after = fresh.lock("failover:after").tryAcquire().orElseThrow()) {
                assertThat(valueOn(promoted, after.key())).isEqualTo(after.token());
            }

            try (Lease followed = lockAfterFailover(existing, EXISTING_CLIENT_BOUND)) {
                System.out.printf("SentinelIT: the client connected before the failover locked on the new master %s, "
                        + "%d ms after the kill%n", promoted.address(), millisSince(killedAt));
                assertThat(valueOn(promoted, followed.key())).isEqualTo(followed.token());
            }
            // its key was replicated before the kill, so the old lease can be extended on the new master
            assertThat(before.extend(Duration.ofSeconds(30))).isTrue();
            assertThat(before.isHeld()).isTrue();
            assertThat(valueOn(promoted, before.key())).isEqualTo(before.token());
            assertThat(before.release()).isTrue();
            assertThat(valueOn(promoted, before.key())).isNull();
        }
    }

    /**
     * A lease taken by {@code client} once it reaches a master again, trying every 200 ms for at most {@code bound};
     * each try takes a lock of its own, so a try that timed out after Redis granted it cannot make the next one busy.
     */
    private static Lease lockAfterFailover(Coordis client, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        CoordisException last = null;
        int attempts = 0;
        while (System.nanoTime() - deadline < 0) {
            attempts++;
            try {
                Optional<Lease> lease = client.lock("failover:existing:" + attempts).tryAcquire();
                if (lease.isPresent()) {
                    return lease.get();
                }
            } catch (CoordisException e) {
                last = e;
            }
            sleep(Duration.ofMillis(200));
        }
        throw new AssertionError("the client connected before the failover did not lock on a master within " + bound
                + " (" + attempts + " tries), last error: " + last, last);
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
