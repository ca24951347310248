package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.internal.lock.RedlockNodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coordis's Redlock and a canonical Redlock client (raw SET NX PX and the specification's release script)
 * on the same five nodes and names: the layout on every node is the canonical one, each excludes the
 * other, and Coordis never deletes the other's value.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RedlockInteropIT {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(TTL).withRestartGuard(false);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(5);

    private Coordis coordis;
    private RedlockCanonicalClient canonical;

    @BeforeEach
    void connect() throws InterruptedException {
        coordis = TestClients.connect(redis.uris());
        RedlockNodes.warmUp(coordis, 5);
        canonical = RedlockCanonicalClient.canonical(redis.servers().stream().map(RedisServer::address).toList());
    }

    @AfterEach
    void close() {
        try {
            coordis.close();
        } finally {
            canonical.close();
        }
    }

    @Test
    void layoutOnEveryNodeIsPlainKeyUniqueValueAndPx() throws Exception {
        String key = Prefixed.key("interop:layout");
        Set<String> tokens = new HashSet<>();
        for (int round = 0; round < 3; round++) {
            try (Lease lease = coordis.lock("interop:layout", OPTIONS).tryAcquire().orElseThrow()) {
                assertThat(tokens.add(lease.token())).as("value unique per acquisition").isTrue();
                assertThat(lease.token()).matches("[0-9a-f]{40}");
                // a node the majority's decision did not wait for runs the script a moment later
                RedlockNodes.awaitValues(redis.servers(), key, Duration.ofSeconds(2),
                        (i, v) -> lease.token().equals(v), "the lease's value on every node");
                for (RedisServer s : redis.servers()) {
                    assertThat(s.command("TYPE", key)).as("type on %s", s.address()).isEqualTo("string");
                    assertThat(s.command("GET", key)).as("value on %s", s.address()).isEqualTo(lease.token());
                    assertThat((Long) s.command("PTTL", key)).as("PX ttl on %s", s.address())
                            .isBetween(TTL.toMillis() - 2_000, TTL.toMillis());
                    // the key is the name itself; Coordis's extra state lives beside it under derived names
                    assertThat((List<Object>) s.command("KEYS", "*" + key + "*")).as("keys on %s", s.address())
                            .containsExactlyInAnyOrder(key, Prefixed.derived("interop:layout", "fence"),
                                    Prefixed.derived("interop:layout", "holder"));
                }
            }
            // release answers once a majority deleted; the other nodes' releases may still be on their way
            RedlockNodes.awaitValues(redis.servers(), key, Duration.ofSeconds(2), (i, v) -> v == null,
                    "the key gone from every node after the release");
        }
    }

    @Test
    void canonicalHolderExcludesCoordisAndSurvivesItsAttempts() {
        String name = "interop:canonical-first";
        String key = Prefixed.key(name);
        String theirs = canonical.tryLock(key, TTL).orElseThrow(() -> new AssertionError("canonical client refused"));
        try {
            DistributedLock lock = coordis.lock(name, OPTIONS);
            assertThat(lock.tryAcquire()).as("Coordis while the canonical client holds").isEmpty();
            assertThat(RedlockNodes.values(redis.servers(), key)).as("canonical value untouched on every node")
                    .containsOnly(theirs);
            LockHolder holder = lock.holder().orElseThrow();
            assertThat(holder.token()).isEqualTo(theirs);
        } finally {
            assertThat(canonical.unlock(key, theirs)).isEqualTo(5);
        }
        try (Lease lease = coordis.lock(name, OPTIONS).tryAcquire().orElseThrow()) {
            assertThat(lease.isHeld()).as("Coordis once the canonical client released").isTrue();
        }
    }

    @Test
    void coordisHolderExcludesTheCanonicalClient() throws Exception {
        String name = "interop:coordis-first";
        String key = Prefixed.key(name);
        try (Lease lease = coordis.lock(name, OPTIONS).tryAcquire().orElseThrow()) {
            // a node the majority's decision did not wait for runs the script a moment later
            RedlockNodes.awaitValues(redis.servers(), key, Duration.ofSeconds(2), (i, v) -> lease.token().equals(v),
                    "Coordis's value on every node");
            assertThat(canonical.tryLock(key, TTL)).as("canonical client while Coordis holds").isEmpty();
            assertThat(RedlockNodes.values(redis.servers(), key)).containsOnly(lease.token());
            assertThat(canonical.unlock(key, "not-the-token")).as("a foreign release deletes nothing").isZero();
            assertThat(lease.isHeld()).isTrue();
        }
        Optional<String> after = canonical.tryLock(key, TTL);
        assertThat(after).as("canonical client once Coordis released").isPresent();
        canonical.unlock(key, after.get());
    }

    @Test
    void coordisReleaseNeverDeletesAForeignValue() throws Exception {
        String name = "interop:minority";
        String key = Prefixed.key(name);
        List<RedisServer> s = redis.servers();
        // a canonical client got two nodes (a minority) before Coordis got the other three
        String theirs = "canonical-" + System.nanoTime();
        s.get(0).command("SET", key, theirs, "NX", "PX", "10000");
        s.get(4).command("SET", key, theirs, "NX", "PX", "10000");
        try {
            Lease lease = coordis.lock(name, OPTIONS).tryAcquire().orElseThrow();
            assertThat(lease.release()).isTrue();
            assertThat(RedlockNodes.values(s, key)).containsExactly(theirs, null, null, null, theirs);
        } finally {
            canonical.unlock(key, theirs);
        }

        // a Coordis lease that expired; the canonical client took the name; the late release must not touch it
        String late = "interop:expired";
        String lateKey = Prefixed.key(late);
        Lease expired = coordis.lock(late, OPTIONS.withTtl(Duration.ofMillis(300)).withAutoRenew(false))
                .tryAcquire().orElseThrow();
        RedlockNodes.awaitValues(s, lateKey, Duration.ofSeconds(3), (i, v) -> v == null, "Coordis lease expired");
        String next = canonical.tryLock(lateKey, TTL)
                .orElseThrow(() -> new AssertionError("canonical refused after expiry"));
        try {
            assertThat(expired.isHeld()).isFalse();
            assertThat(expired.release()).as("release of an expired lease").isFalse();
            assertThat(RedlockNodes.values(s, lateKey)).as("the canonical holder's value on every node")
                    .containsOnly(next);
        } finally {
            canonical.unlock(lateKey, next);
        }
    }
}
