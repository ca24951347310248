package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.NodeVote;
import io.coordis.TestClients;
import io.coordis.internal.lock.RedlockNodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart guard when clients with different TTLs share the nodes. A client's guard promises that a
 * node's vote counts only once the node has been up longer than that client's largest TTL. The marker
 * that records a verified node is one key per node, shared by every client: it must not let a client
 * with a short TTL vouch, after its short window, for a node that a long-TTL client still must not trust.
 */
class RedlockRestartGuardMixedTtlIT {
    private static final Duration LONG_TTL = Duration.ofSeconds(4);
    private static final Duration SHORT_TTL = Duration.ofSeconds(1);
    private static final LockOptions LONG = LockOptions.defaults().withTtl(LONG_TTL).withAutoRenew(false);
    private static final LockOptions SHORT = LockOptions.defaults().withTtl(SHORT_TTL).withAutoRenew(false);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(5);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aShortTtlClientMustNotVouchForARestartedNodeOnBehalfOfALongTtlClient() throws Exception {
        String name = "guard:mixed";
        String key = Prefixed.key(name);
        List<RedisServer> s = redis.servers();
        RedlockNodes.awaitUptime(s, LONG_TTL.toSeconds() + 1, Duration.ofSeconds(20));
        try (Coordis holder = TestClients.connect(redis.uris());
             Coordis longClient = TestClients.connect(redis.uris());
             Coordis shortClient = TestClients.connect(redis.uris())) {
            RedlockNodes.warmUp(holder, 5, LONG_TTL);
            RedlockNodes.warmUp(longClient, 5, LONG_TTL);
            RedlockNodes.warmUp(shortClient, 5, SHORT_TTL);
            // the long-TTL client trusts every node before the crash
            longClient.lock("guard:mixed:before", LONG).tryAcquire().orElseThrow().release();

            // a long-TTL lease on exactly nodes 0, 1, 2
            s.get(3).command("SET", key, "other", "PX", "10000");
            s.get(4).command("SET", key, "other", "PX", "10000");
            Lease held = holder.lock(name, LONG).tryAcquire().orElseThrow();
            long heldAt = System.nanoTime();
            // the holder's try may return before nodes 3 and 4 answered: its SET NX there must meet "other", not
            // the deleted key, or the holder would hold them too (and the long-TTL client find the lock busy)
            Thread.sleep(100);
            s.get(3).command("DEL", key);
            s.get(4).command("DEL", key);

            // node 0 crashes and comes back empty; the short-TTL client's window (1 s) passes, the long one (4 s) not
            s.get(0).restart(Duration.ZERO);
            RedlockNodes.awaitUptime(List.of(s.get(0)), SHORT_TTL.toSeconds() + 1, Duration.ofSeconds(10));
            for (Coordis c : List.of(longClient, shortClient)) {
                RedlockNodes.warmUp(c, 5, SHORT_TTL); // connections to node 0 back, guards untouched
            }
            // the short-TTL client rightly trusts node 0 again, and marks it
            shortClient.lock("guard:mixed:short", SHORT).tryAcquire()
                    .orElseThrow(() -> new AssertionError("short-TTL client refused after its window")).release();

            Optional<Lease> second = Optional.empty();
            QuorumUnavailableException refused = null;
            DistributedLock longLock = longClient.lock(name, LONG);
            try {
                second = longLock.tryAcquire();
            } catch (QuorumUnavailableException e) {
                refused = e;
            }
            boolean firstStillValid = held.isHeld();
            long node0Uptime = RedlockNodes.uptime(s.get(0));
            try {
                assertThat(firstStillValid).as("the first lease is still valid %d ms after it was granted",
                        (System.nanoTime() - heldAt) / 1_000_000).isTrue();
                assertThat(second).as("long-TTL client granted %s with the vote of node 0, up %d s < %s + 1 s, while "
                                + "the first lease on nodes 0, 1, 2 is valid; votes: %s", name, node0Uptime, LONG_TTL,
                        second.map(Lease::votes).orElse(null))
                        .isEmpty();
                assertThat(refused).as("refused for want of a quorum, not busy; votes: %s", longLock.lastVotes())
                        .isNotNull();
                assertThat(refused.votes().get(0).vote()).as(refused.getMessage())
                        .isEqualTo(NodeVote.Vote.REFUSED_RECENT_RESTART);
            } finally {
                second.ifPresent(Lease::release);
                held.release();
            }
        }
    }
}
