package io.coordis;

import io.coordis.lock.Lease;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.SentinelGroup;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code redis-sentinel://} URLs: locks land on the master the sentinels name, also after a failover. */
class SentinelIT {
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    private static final Duration EXISTING_CLIENT_GRACE = Duration.ofSeconds(15);

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
    void afterAFailoverANewClientLocksOnThePromotedReplica() {
        try (SentinelGroup group = SentinelGroup.start(2, 3);
             Coordis existing = TestClients.builder().url(group.sentinelUri()).commandTimeout(Duration.ofSeconds(1))
                     .connect()) {
            RedisServer old = group.master();
            Lease before = existing.lock("failover:before").tryAcquire().orElseThrow();
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

            if (followedFailover(existing, promoted, killedAt)) {
                // its key was replicated before the kill, so the old lease can be extended on the new master
                assertThat(before.extend(Duration.ofSeconds(30))).isTrue();
                assertThat(before.isHeld()).isTrue();
                assertThat(valueOn(promoted, before.key())).isEqualTo(before.token());
                assertThat(before.release()).isTrue();
                assertThat(valueOn(promoted, before.key())).isNull();
            }
            before.close();
        }
    }

    /**
     * Whether the client connected before the failover reaches the new master within the grace period;
     * not following is reported, not failed (it depends on Lettuce's reconnect schedule).
     */
    private static boolean followedFailover(Coordis existing, RedisServer promoted, long killedAt) {
        long deadline = System.nanoTime() + EXISTING_CLIENT_GRACE.toNanos();
        CoordisException last = null;
        int attempts = 0;
        while (System.nanoTime() < deadline) {
            attempts++;
            try {
                Optional<Lease> lease = existing.lock("failover:existing").tryAcquire();
                if (lease.isPresent()) {
                    try (Lease l = lease.get()) {
                        assertThat(valueOn(promoted, l.key())).isEqualTo(l.token());
                    }
                    System.out.printf("SentinelIT: the client connected before the failover locked on the new master "
                            + "%s, %d ms after the kill, attempt %d%n", promoted.address(), millisSince(killedAt), attempts);
                    return true;
                }
            } catch (CoordisException e) {
                last = e;
            }
            sleep(Duration.ofMillis(200));
        }
        System.out.printf("SentinelIT: the client connected before the failover did NOT reach the new master within %s "
                + "(%d attempts, last error: %s)%n", EXISTING_CLIENT_GRACE, attempts, last);
        return false;
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
