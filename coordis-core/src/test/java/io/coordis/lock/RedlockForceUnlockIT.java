package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A forced unlock of a Redlock lock runs on every node; with a node down it still frees the majority. */
class RedlockForceUnlockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(3))
            .withNodeTimeout(Duration.ofMillis(500)).withRestartGuard(false);

    @Test
    void everyNodeIsForcedAndTheForcedHolderLearnsOfIt() throws Exception {
        try (Coordis holderClient = TestClients.connect(redis.uris());
             Coordis operator = TestClients.connect(redis.uris())) {
            Lease forced = holderClient.lock("deploy", OPTIONS.withHolderId("bob@ci:7")).tryAcquire().orElseThrow();
            ForcedUnlock done = operator.lock("deploy", OPTIONS).forceUnlock("deploy hung").orElseThrow();
            assertThat(done.forcedNodes()).isEqualTo(3);
            assertThat(done.nodes()).isEqualTo(3);
            assertThat(done.holderId()).contains("bob@ci:7");
            assertThat(done.fencingToken()).isGreaterThan(forced.fencingToken());
            for (RedisServer server : redis.servers()) {
                assertThat(server.command("EXISTS", Prefixed.key("deploy"))).isEqualTo(0L);
                Object audit = server.command("LINDEX", Prefixed.derived("deploy", "audit"), "0");
                assertThat(ForceUnlockIT.entry(audit).group(3)).isEqualTo("deploy hung");
            }
            assertThat(forced.lost().toCompletableFuture().get(20, TimeUnit.SECONDS)).isSameAs(forced);
            Lease next = operator.lock("deploy", OPTIONS).tryAcquire().orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(done.fencingToken());
            next.release();
        }
    }

    @Test
    void aNodeThatIsDownIsReportedAsNotForced() {
        try (Coordis holderClient = TestClients.connect(redis.uris());
             Coordis operator = TestClients.connect(redis.uris())) {
            Lease forced = holderClient.lock("partial", OPTIONS.withAutoRenew(false)).tryAcquire().orElseThrow();
            redis.servers().get(2).pause();
            try {
                ForcedUnlock done = operator.lock("partial", OPTIONS).forceUnlock("").orElseThrow();
                assertThat(done.forcedNodes()).isEqualTo(2);
                assertThat(done.describe()).contains("on 2 of 3 nodes");
                assertThat(forced.extend(Duration.ofSeconds(3))).isFalse();
            } finally {
                redis.servers().get(2).resume();
            }
        }
    }
}
