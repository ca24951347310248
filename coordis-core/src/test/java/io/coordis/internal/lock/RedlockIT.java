package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.NodeVote;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redlock over five real, independent redis-server processes: the {@link LockContract}, and the quorum. */
class RedlockIT extends LockContract {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(5);

    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(5)).withRestartGuard(false);

    @Override
    protected List<String> urls() {
        return redis.uris();
    }

    @Override
    protected List<RedisServer> servers() {
        return redis.servers();
    }

    @Override
    protected DistributedLock lock(Coordis client, String name, LockOptions options) {
        return client.lock(name, options);
    }

    @Override
    protected LockOptions options() {
        return LockOptions.defaults().withRestartGuard(false);
    }

    /** Several TTLs pass in a test; node timeouts roomy enough for a loaded 2-core machine. */
    @Override
    protected LockOptions shortTtl() {
        return options().withTtl(Duration.ofMillis(1500)).withNodeTimeout(Duration.ofMillis(200));
    }

    @Test
    void acquiresOnEveryNodeWithTheCanonicalLayoutAndReleasesEverywhere() {
        Lease lease = a.lock("rl", OPTIONS).tryAcquire().orElseThrow();
        RedlockNodes.assertVotes(lease.votes(), NodeVote.Vote.ACQUIRED, NodeVote.Vote.ACQUIRED, NodeVote.Vote.ACQUIRED,
                NodeVote.Vote.ACQUIRED, NodeVote.Vote.ACQUIRED);
        for (RedisServer s : redis.servers()) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2))
                    .until(() -> lease.token().equals(s.command("GET", Prefixed.key("rl"))));
            assertThat((Long) s.command("PTTL", Prefixed.key("rl"))).isBetween(1L, 5000L);
        }
        assertThat(b.lock("rl", OPTIONS).tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
        for (RedisServer s : redis.servers()) {
            // release answers once a majority did; the other nodes' releases may still be on their way
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2))
                    .until(() -> Long.valueOf(0).equals(s.command("EXISTS", Prefixed.key("rl"))));
        }
        assertThat(b.lock("rl", OPTIONS).tryAcquire()).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void anUncontendedCycleCostsTwoScriptCallsPerNodeAndPublishesNothing() {
        DistributedLock lock = a.lock("cheap", OPTIONS);
        lock.tryAcquire().orElseThrow().close(); // scripts loaded everywhere
        for (RedisServer s : redis.servers()) {
            // the release returns at a majority; a node not waited for runs it a moment later, before the reset
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                    .until(() -> Long.valueOf(0).equals(s.command("EXISTS", Prefixed.key("cheap"))));
            s.command("CONFIG", "RESETSTAT");
        }
        for (int i = 0; i < 10; i++) {
            lock.tryAcquire().orElseThrow().close();
        }
        for (RedisServer s : redis.servers()) {
            // per cycle: EVALSHA acquire (SET, INCRBY and PEXPIRE of the counter, HSET, PEXPIRE) + EVALSHA release
            // (GET, DEL, DEL); a node the majority
            // did not wait for still ran both, so the counts settle shortly after
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                java.util.Map<String, Long> calls = new java.util.TreeMap<>();
                for (String line : ((String) s.command("INFO", "commandstats")).split("\\r?\\n")) {
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^cmdstat_([^:]+):calls=(\\d+)").matcher(line);
                    if (m.find() && !m.group(1).equals("info") && !m.group(1).equals("auth") && !m.group(1).startsWith("config")) {
                        calls.put(m.group(1), Long.parseLong(m.group(2)));
                    }
                }
                assertThat(calls).as("%s", s.address()).containsEntry("evalsha", 20L).containsEntry("set", 10L)
                        .containsEntry("incrby", 10L).containsEntry("hset", 10L).containsEntry("pexpire", 20L)
                        .containsEntry("get", 10L).containsEntry("del", 20L).doesNotContainKey("publish")
                        .doesNotContainKey("time");
                assertThat(calls.values().stream().mapToLong(Long::longValue).sum()).as("%s", calls).isEqualTo(100L);
            });
        }
    }

    @Test
    void aMinorityHeldByAnotherValueStillGrantsAMajorityDoesNot() {
        List<RedisServer> s = redis.servers();
        s.get(0).command("SET", Prefixed.key("split"), "theirs", "PX", "10000");
        s.get(1).command("SET", Prefixed.key("split"), "theirs", "PX", "10000");
        // a value on a minority holds nothing: it is no holder
        assertThat(a.lock("split", OPTIONS).holder()).isEmpty();
        Lease lease = a.lock("split", OPTIONS).tryAcquire().orElseThrow();
        // three nodes granted; the two held by "theirs" refused, unless the majority was decided before they answered
        assertThat(Quorum.count(lease.votes(), NodeVote.Vote.ACQUIRED)).isEqualTo(3);
        assertThat(lease.votes()).extracting(NodeVote::vote).hasSize(5).filteredOn(v -> v != NodeVote.Vote.ACQUIRED)
                .allMatch(v -> v == NodeVote.Vote.HELD_BY_OTHER || v == NodeVote.Vote.NOT_AWAITED);
        assertThat(s.get(1).command("GET", Prefixed.key("split"))).isEqualTo("theirs");
        assertThat(a.lock("split", OPTIONS).holder().orElseThrow().token()).isEqualTo(lease.token());
        lease.close();
        assertThat(s.get(0).command("GET", Prefixed.key("split"))).isEqualTo("theirs");

        s.get(2).command("SET", Prefixed.key("split"), "theirs", "PX", "10000");
        assertThat(a.lock("split", OPTIONS).holder().orElseThrow().token()).isEqualTo("theirs");
        assertThat(a.lock("split", OPTIONS).tryAcquire()).isEmpty();
        // a failed attempt leaves nothing of ours behind (its release goes to every node without waiting)
        for (RedisServer server : s) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
                Object v = server.command("GET", Prefixed.key("split"));
                assertThat(v == null || v.equals("theirs")).as("value on %s: %s", server.address(), v).isTrue();
            });
        }
    }

    @Test
    void aBusyAnswerStillTellsHowEachNodeVoted() {
        List<RedisServer> s = redis.servers();
        for (int i = 0; i < 3; i++) {
            s.get(i).command("SET", Prefixed.key("voted"), "theirs", "PX", "10000");
        }
        DistributedLock lock = a.lock("voted", OPTIONS);
        assertThat(lock.lastVotes()).isEmpty();
        assertThat(lock.tryAcquire()).isEmpty();
        RedlockNodes.assertVotes(lock.lastVotes(), NodeVote.Vote.HELD_BY_OTHER,
                NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.ACQUIRED, NodeVote.Vote.ACQUIRED);
        assertThat(lock.lastVotes()).extracting(NodeVote::node).containsExactlyElementsOf(
                s.stream().map(RedisServer::address).toList());
    }

    @Test
    void renewalStopsAtTheMaximumHoldTimeAndTheHolderIsTold() throws Exception {
        Lease lease = a.lock("capped", OPTIONS.withTtl(Duration.ofMillis(300)).withMaxHold(Duration.ofMillis(700)))
                .tryAcquire().orElseThrow();
        long start = System.nanoTime();
        lease.lost().toCompletableFuture().get(3, java.util.concurrent.TimeUnit.SECONDS);
        Duration held = Duration.ofNanos(System.nanoTime() - start);
        // renewed past its 300 ms TTL, but not past the cap plus one TTL
        assertThat(held).isBetween(Duration.ofMillis(600), Duration.ofMillis(1300));
        assertThat(lease.isHeld()).isFalse();
        assertThat(b.lock("capped", OPTIONS).acquire(Duration.ofSeconds(2))).isPresent().get().satisfies(Lease::close);
    }

    @Test
    void fencingNumbersGrowAcrossDifferentMajorities() {
        List<RedisServer> s = redis.servers();
        long last = 0;
        // force each acquisition through a different majority by pre-holding the other two nodes
        int[][] blocked = {{3, 4}, {0, 1}, {0, 4}, {1, 2}, {2, 3}, {}};
        for (int[] block : blocked) {
            for (int i : block) {
                s.get(i).command("SET", Prefixed.key("fenced"), "theirs", "PX", "10000");
            }
            Lease lease = a.lock("fenced", OPTIONS).tryAcquire().orElseThrow();
            assertThat(lease.fencingToken()).isGreaterThan(last);
            last = lease.fencingToken();
            lease.close();
            for (int i : block) {
                s.get(i).command("DEL", Prefixed.key("fenced"));
            }
        }
    }

    @Test
    void twoUrlsAreRefused() {
        assertThatThrownBy(() -> Coordis.connect(redis.uris().subList(0, 2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 3");
    }

    @Test
    void legacyLockIsRefusedOnSeveralNodes() {
        assertThatThrownBy(() -> a.legacyLock("x", OPTIONS)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTokenLabelGoesBeforeTheTokenOnEveryNode() throws InterruptedException {
        Lease lease = a.lock("labelled", OPTIONS.withTokenLabel(() -> "ADDED:now@host:")).tryAcquire().orElseThrow();
        assertThat(lease.token()).startsWith("ADDED:now@host:");
        // the acquire answers at a majority; a node it did not wait for runs the script a moment later
        RedlockNodes.awaitValues(redis.servers(), Prefixed.key("labelled"), Duration.ofSeconds(5),
                (i, v) -> lease.token().equals(v), "the labelled token on every node");
        lease.release();
    }
}
