package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.internal.Hosts;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An operator's forced unlock on a single node and on the legacy lock: the lock goes, its fencing counter
 * is bumped (the next holder's number is above the forced holder's), the forced holder's watchdog reports
 * the loss, and an audit entry records who, when and why.
 */
class ForceUnlockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** Fields of one audit entry, read with a pattern so that the test depends on the exact JSON shape. */
    private static final Pattern ENTRY = Pattern.compile("\\{\"at\":(\\d+),\"by\":\"([^\"]*)\",\"action\":\"force-unlock\","
            + "\"reason\":\"((?:[^\"\\\\]|\\\\.)*)\",\"holder\":\"([^\"]*)\",\"fence\":(\\d+)}");

    private static final LockOptions RENEWED = LockOptions.defaults().withTtl(Duration.ofSeconds(3));

    static Matcher entry(Object raw) {
        Matcher m = ENTRY.matcher(String.valueOf(raw));
        assertThat(m.matches()).as("audit entry %s", raw).isTrue();
        return m;
    }

    @Test
    void forcedHolderLosesItAndTheNextHolderGetsAHigherNumber() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Coordis holderClient = TestClients.connect(redis.uri());
             Coordis waiterClient = TestClients.connect(redis.uri());
             Coordis operator = TestClients.connect(redis.uri())) {
            Lease forced = holderClient.lock("jobs:nightly", RENEWED.withHolderId("alice@web1:42")).tryAcquire().orElseThrow();
            CompletableFuture<Lease> lost = forced.lost().toCompletableFuture();
            Future<Optional<Lease>> next = pool.submit(() -> waiterClient.lock("jobs:nightly", RENEWED).acquire(Duration.ofSeconds(60)));
            long before = System.currentTimeMillis();

            LockHolder shown = operator.lock("jobs:nightly").holder().orElseThrow();
            ForcedUnlock done = operator.lock("jobs:nightly").forceUnlock(shown, "stuck since Friday").orElseThrow();

            assertThat(done.holderId()).contains("alice@web1:42");
            assertThat(done.token()).isEqualTo(forced.token());
            assertThat(done.fencingToken()).isGreaterThan(forced.fencingToken());
            assertThat(done.forcedNodes()).isEqualTo(1);
            // The waiter is woken by the release notice, long before the forced holder's TTL would end.
            Lease successor = next.get(30, TimeUnit.SECONDS).orElseThrow();
            assertThat(successor.fencingToken()).isGreaterThan(done.fencingToken()).isGreaterThan(forced.fencingToken());
            // The forced holder's watchdog finds out at its next renewal (a third of the 3 s TTL).
            assertThat(lost.get(20, TimeUnit.SECONDS)).isSameAs(forced);
            assertThat(forced.isHeld()).isFalse();
            // Its late release leaves the successor alone.
            assertThat(forced.release()).isFalse();
            assertThat(successor.isHeld()).isTrue();

            List<?> audit = (List<?>) redis.server().command("LRANGE", Prefixed.derived("jobs:nightly", "audit"), "0",
                    "-1");
            assertThat(audit).hasSize(1);
            Matcher m = entry(audit.get(0));
            assertThat(Long.parseLong(m.group(1))).isBetween(before - 1, System.currentTimeMillis() + 1);
            assertThat(m.group(2)).isEqualTo(Hosts.processId());
            assertThat(m.group(3)).isEqualTo("stuck since Friday");
            assertThat(m.group(4)).isEqualTo("alice@web1:42");
            assertThat(Long.parseLong(m.group(5))).isEqualTo(done.fencingToken());
            successor.release();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aForeignLockIsForcedWithAnUnknownHolder() {
        RedisServer server = redis.server();
        server.command("SET", Prefixed.key("reports"), "python-client-value", "PX", "60000");
        try (Coordis operator = TestClients.connect(redis.uri())) {
            ForcedUnlock done = operator.lock("reports").forceUnlock("").orElseThrow();
            assertThat(done.holderId()).isEmpty();
            assertThat(done.token()).isEqualTo("python-client-value");
            assertThat(done.fencingToken()).isPositive();
            assertThat(server.command("EXISTS", Prefixed.key("reports"))).isEqualTo(0L);
            Matcher m = entry(server.command("LINDEX", Prefixed.derived("reports", "audit"), "0"));
            assertThat(m.group(3)).isEmpty();
            assertThat(m.group(4)).isEqualTo("unknown");
            assertThat(operator.lock("reports").tryAcquire().orElseThrow().fencingToken())
                    .isGreaterThan(done.fencingToken());
        }
    }

    @Test
    void aFreeLockOrAnotherHolderIsLeftAlone() {
        RedisServer server = redis.server();
        try (Coordis a = TestClients.connect(redis.uri()); Coordis operator = TestClients.connect(redis.uri())) {
            Object counter = server.command("GET", Prefixed.derived("free", "fence"));
            assertThat(operator.lock("free").forceUnlock("nothing to do")).isEmpty();
            assertThat(server.command("GET", Prefixed.derived("free", "fence"))).as("no number taken").isEqualTo(counter);
            assertThat(server.command("EXISTS", Prefixed.derived("free", "audit"))).isEqualTo(0L);

            Lease first = a.lock("swapped").tryAcquire().orElseThrow();
            LockHolder shown = operator.lock("swapped").holder().orElseThrow();
            first.release();
            Lease second = a.lock("swapped").tryAcquire().orElseThrow();
            // The operator confirmed the first holder; the second one must not be removed.
            assertThat(operator.lock("swapped").forceUnlock(shown, "confirmed the old one")).isEmpty();
            assertThat(second.isHeld()).isTrue();
            assertThat(server.command("GET", Prefixed.key("swapped"))).isEqualTo(second.token());
            assertThat(server.command("GET", Prefixed.derived("swapped", "fence")))
                    .isEqualTo(Long.toString(second.fencingToken()));
            assertThat(server.command("EXISTS", Prefixed.derived("swapped", "audit"))).isEqualTo(0L);
            second.release();
        }
    }

    @Test
    void reasonsAreEscapedAndTheAuditKeepsTheNewestHundred() {
        RedisServer server = redis.server();
        try (Coordis operator = TestClients.connect(redis.uri())) {
            DistributedLock lock = operator.lock("busy");
            for (int i = 1; i <= 101; i++) {
                server.command("SET", Prefixed.key("busy"), "v" + i);
                assertThat(lock.forceUnlock("round " + i)).isPresent();
            }
            server.command("SET", Prefixed.key("busy"), "v");
            lock.forceUnlock("said \"stop\"\nthen left\\");
            List<?> audit = (List<?>) server.command("LRANGE", Prefixed.derived("busy", "audit"), "0", "-1");
            assertThat(audit).hasSize(100);
            assertThat((Long) server.command("PTTL", Prefixed.derived("busy", "audit"))).as("kept for a day")
                    .isBetween(1L, Duration.ofDays(1).toMillis());
            assertThat(entry(audit.get(0)).group(3)).isEqualTo("said \\\"stop\\\"\\nthen left\\\\");
            assertThat(entry(audit.get(1)).group(3)).isEqualTo("round 101");
            assertThat(entry(audit.get(99)).group(3)).isEqualTo("round 3");
            assertThat(Long.parseLong(entry(audit.get(0)).group(5)))
                    .isGreaterThan(Long.parseLong(entry(audit.get(1)).group(5)));
        }
    }

    @Test
    void wrongTypeAndOverlongReasonsAreRefusedWithoutChanges() {
        RedisServer server = redis.server();
        server.command("LPUSH", Prefixed.key("a-list"), "x");
        try (Coordis operator = TestClients.connect(redis.uri())) {
            assertThatThrownBy(() -> operator.lock("a-list").forceUnlock("oops"))
                    .isInstanceOf(WrongTypeException.class).hasMessageContaining("a-list");
            assertThatThrownBy(() -> operator.lock("a-list").forceUnlock("x".repeat(1001)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1001");
            assertThat(server.command("LLEN", Prefixed.key("a-list"))).isEqualTo(1L);
            assertThat(server.command("EXISTS", Prefixed.derived("a-list", "audit"))).isEqualTo(0L);
        }
    }

    @Test
    void theLegacyLockIsForcedToo() throws Exception {
        try (Coordis holderClient = TestClients.connect(redis.uri());
             Coordis operator = TestClients.connect(redis.uri())) {
            Lease forced = holderClient.legacyLock("legacy", RENEWED).tryAcquire().orElseThrow();
            ForcedUnlock done = operator.legacyLock("legacy", LockOptions.defaults()).forceUnlock("legacy stuck").orElseThrow();
            assertThat(done.fencingToken()).isGreaterThan(forced.fencingToken());
            assertThat(done.holderId()).isEmpty();
            assertThat(forced.lost().toCompletableFuture().get(20, TimeUnit.SECONDS)).isSameAs(forced);
            Lease next = operator.legacyLock("legacy", LockOptions.defaults()).tryAcquire().orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(done.fencingToken());
            assertThat(entry(redis.server().command("LINDEX", Prefixed.derived("legacy", "audit"), "0")).group(3))
                    .isEqualTo("legacy stuck");
            next.release();
        }
    }
}
