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
 * The specification's crash-recovery hazard: a lock held on exactly 3 of 5 nodes, one of them crashes and
 * comes back empty at once, and the restarted node plus the two others form a new majority. With the
 * restart guard the restarted node refuses to vote until it has been up longer than the TTL; without it a
 * second holder gets the lock while the first lease is still valid.
 */
class RedlockRestartGuardIT {
    private static final Duration TTL = Duration.ofSeconds(2);
    /** The guard trusts a node once its whole-second uptime reaches TTL + 1 s. */
    private static final long TRUSTED_UPTIME = TTL.toSeconds() + 1;
    private static final LockOptions GUARDED = LockOptions.defaults().withTtl(TTL).withAutoRenew(false);
    private static final LockOptions UNGUARDED = GUARDED.withRestartGuard(false);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(5);

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void restartedNodeRefusesToVoteUntilUpLongerThanTheTtl() throws Exception {
        String name = "guard:restart";
        String key = Prefixed.key(name);
        List<RedisServer> s = redis.servers();
        RedlockNodes.awaitUptime(s, TRUSTED_UPTIME, Duration.ofSeconds(20));
        try (Coordis first = TestClients.connect(redis.uris());
             Coordis second = TestClients.connect(redis.uris());
             Coordis third = TestClients.connect(redis.uris());
             Coordis careless = TestClients.connect(redis.uris())) {
            for (Coordis c : List.of(first, second, third, careless)) {
                RedlockNodes.warmUp(c, 5, TTL);
            }
            // the second client has verified every node before the crash (its guard trusts them)
            second.lock("guard:warmup", GUARDED).tryAcquire().orElseThrow().release();

            // the first holder gets exactly nodes 0, 1, 2: another client holds 3 and 4, then lets go
            s.get(3).command("SET", key, "other", "PX", "10000");
            s.get(4).command("SET", key, "other", "PX", "10000");
            Lease lease = first.lock(name, GUARDED).tryAcquire().orElseThrow();
            RedlockNodes.assertVotes(lease.votes(), NodeVote.Vote.ACQUIRED,
                    NodeVote.Vote.ACQUIRED, NodeVote.Vote.ACQUIRED, NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.HELD_BY_OTHER);
            s.get(3).command("DEL", key);
            s.get(4).command("DEL", key);

            // node 0 crashes and comes back at once, without the lock (no persistence)
            s.get(0).restart(Duration.ZERO);
            assertThat(s.get(0).command("EXISTS", key)).isEqualTo(0L);

            // the clients' connections to node 0 broke; wait until they are back (the warm-up lock is
            // unguarded, so it neither verifies node 0 nor notices its missing marker)
            for (Coordis c : List.of(second, third, careless)) {
                RedlockNodes.warmUp(c, 5, TTL);
            }
            // a client that trusted node 0 before: the acquire script finds the marker gone
            assertRefusedByRestartedNode(second.lock(name, GUARDED), s, name, "not verified since its restart");
            // a client that never verified node 0 before: the uptime check refuses
            assertRefusedByRestartedNode(third.lock(name, GUARDED), s, name, "up less than");
            assertThat(lease.isHeld()).as("first lease valid throughout").isTrue();

            // negative control: without the guard the same situation hands out a second lock
            Optional<Lease> unguarded = careless.lock(name, UNGUARDED).tryAcquire();
            boolean firstStillValid = lease.isHeld();
            assertThat(unguarded).as("without the guard nodes 0, 3, 4 form a majority").isPresent();
            try {
                RedlockNodes.assertVotes(unguarded.get().votes(), NodeVote.Vote.ACQUIRED,
                        NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.ACQUIRED,
                        NodeVote.Vote.ACQUIRED);
                assertThat(firstStillValid).as("two valid leases at once: the hazard the guard prevents").isTrue();
            } finally {
                unguarded.get().release();
            }

            // once node 0 has been up longer than the TTL (the first lease has expired by then), it votes again
            RedlockNodes.awaitUptime(List.of(s.get(0)), TRUSTED_UPTIME, Duration.ofSeconds(20));
            assertThat(lease.isHeld()).isFalse();
            Lease later = second.lock(name, GUARDED).tryAcquire()
                    .orElseThrow(() -> new AssertionError("not granted once node 0 was trusted again"));
            try {
                // node 0 verifies its uptime first, so its vote may come after the majority's decision
                assertThat(later.votes()).extracting(NodeVote::vote)
                        .isSubsetOf(NodeVote.Vote.ACQUIRED, NodeVote.Vote.NOT_AWAITED);
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2))
                        .until(() -> later.token().equals(s.get(0).command("GET", key)));
            } finally {
                later.release();
                lease.release();
            }
        }
    }

    private static void assertRefusedByRestartedNode(DistributedLock lock, List<RedisServer> s, String name,
                                                     String detail) throws InterruptedException {
        String key = Prefixed.key(name);
        List<Object> before = RedlockNodes.values(s, key);
        QuorumUnavailableException refused = null;
        Optional<Lease> got = Optional.empty();
        try {
            got = lock.tryAcquire();
        } catch (QuorumUnavailableException e) {
            refused = e;
        }
        got.ifPresent(Lease::release);
        assertThat(got).as("granted with the restarted node's vote").isEmpty();
        assertThat(refused).as("a refusal that names the votes").isNotNull();
        NodeVote restarted = refused.votes().get(0);
        assertThat(restarted.vote()).as(refused.getMessage()).isEqualTo(NodeVote.Vote.REFUSED_RECENT_RESTART);
        assertThat(restarted.detail()).contains(detail);
        assertThat(refused.votes()).extracting(NodeVote::vote).containsExactly(NodeVote.Vote.REFUSED_RECENT_RESTART,
                NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.ACQUIRED, NodeVote.Vote.ACQUIRED);
        assertThat(refused.getMessage()).contains(s.get(0).address() + " refused recent restart");
        assertThat(s.get(0).command("EXISTS", key)).as("nothing written on the restarted node").isEqualTo(0L);
        RedlockNodes.awaitValues(s, key, Duration.ofSeconds(2), (i, v) -> java.util.Objects.equals(v, before.get(i)),
                "the refused attempt released nodes 3 and 4");
    }
}
