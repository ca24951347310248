package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.NodeVote;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.QuorumUnavailableException;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every one of the 32 ways to make some of 5 nodes unavailable: the lock is granted exactly when at least
 * 3 nodes are free, and afterwards none of our values is left on any node. "Unavailable" is first a node
 * where another client holds the key, then a node behind a black hole.
 */
class RedlockQuorumIT {
    private static final int N = 5;
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(50);
    /** An attempt waits for the slowest node once, not for each node in turn. */
    private static final Duration ATTEMPT_BOUND = NODE_TIMEOUT.multipliedBy(2).plusMillis(150);
    private static final Duration SETTLE = Duration.ofSeconds(2);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(N);

    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(10))
            .withAutoRenew(false).withRestartGuard(false).withNodeTimeout(NODE_TIMEOUT);

    /**
     * A node that answers only after the majority's decision and its grace is not waited for on the next
     * attempts (so a slowed node costs no grace on each of them), is tried again on one attempt in 16, and is
     * waited for again once it keeps up.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aNodeThatAnsweredLateIsNotWaitedForUntilItKeepsUpAgain() throws Exception {
        List<FaultProxy> proxies = new ArrayList<>();
        try {
            for (RedisServer s : redis.servers()) {
                proxies.add(FaultProxy.to(s));
            }
            try (Coordis client = TestClients.connect(proxies.stream().map(FaultProxy::uri).toList())) {
                RedlockNodes.warmUp(client, N);
                // a short TTL: a value a timed-out release left behind (see below) is gone within a second
                DistributedLock lock = client.lock("quorum:slow", OPTIONS.withTtl(Duration.ofSeconds(1)));
                proxies.get(4).latency(Duration.ofMillis(15)); // answers ~30 ms after the others: past any grace
                List<String> details = new ArrayList<>();
                Set<String> ours = new HashSet<>();
                for (int i = 0; i < 20; i++) {
                    Lease lease = lock.tryAcquire().orElseThrow();
                    ours.add(lease.token());
                    NodeVote vote = lease.votes().get(4);
                    details.add(vote.vote() == NodeVote.Vote.NOT_AWAITED ? vote.detail() : vote.vote().name());
                    lease.release();
                }
                // the first attempt waits for it (a grace), in vain; on a loaded machine the majority may be as
                // slow as the node once, so late on one of the first attempts
                int firstLate = details.indexOf(Round.MAJORITY_DECIDED);
                assertThat(firstLate).as("the first attempt that waited for it in vain; all: %s", details)
                        .isBetween(0, 2);
                // from then on not waited for, but on a probe (one attempt in 16, two attempts if it was in time)
                long notWaitedFor = details.subList(firstLate + 1, details.size()).stream()
                        .filter(Redlock.NOT_WAITED_FOR::equals).count();
                assertThat(notWaitedFor).as("attempts that did not wait for the slow node: %s", details)
                        .isGreaterThanOrEqualTo(details.size() - firstLate - 1 - 2L);
                proxies.get(4).pass();
                // Once fast again the node answers in time: it grants, or it still holds a value of an earlier
                // attempt of ours. That happens when a release there timed out on a loaded machine: its
                // connection is given up with the release unsent, and the value stays until the release sent
                // again on the new connection lands (or the TTL ends). So after 40 attempts, more until it grants,
                // within twice the TTL.
                String key = Prefixed.key("quorum:slow");
                List<NodeVote.Vote> after = new ArrayList<>();
                long grantedBy = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                for (int i = 0; i < 40 || !after.contains(NodeVote.Vote.ACQUIRED) && System.nanoTime() < grantedBy; i++) {
                    Lease lease = lock.tryAcquire().orElseThrow();
                    ours.add(lease.token());
                    NodeVote.Vote vote = lease.votes().get(4).vote();
                    after.add(vote);
                    if (vote == NodeVote.Vote.HELD_BY_OTHER) {
                        Object held = redis.servers().get(4).command("GET", key); // null: it expired since
                        assertThat(held == null || ours.contains(held))
                                .as("node 4 refused attempt %d; it holds %s, a value of an earlier attempt: %s", i, held,
                                        after)
                                .isTrue();
                    }
                    lease.release();
                }
                // tried again on one attempt in 16, in time now, and then waited for on every attempt; a probe
                // has a grace of 1 ms, which a loaded machine may miss once, so within two probes
                int firstInTime = IntStream.range(0, after.size()).filter(i -> inTime(after.get(i))).findFirst().orElse(-1);
                assertThat(firstInTime).as("votes of the node once fast again: %s", after).isBetween(0, 32);
                assertThat(after.subList(firstInTime, 40).stream().filter(RedlockQuorumIT::inTime).count())
                        .as("answered in time on most attempts after that (a loaded machine may make it late now and "
                                + "then): %s", after)
                        .isGreaterThanOrEqualTo((40 - firstInTime) / 2L);
                assertThat(after).as("granted again: %s", after).contains(NodeVote.Vote.ACQUIRED);
            }
        } finally {
            proxies.forEach(FaultProxy::close);
        }
    }

    /** An answer the round waited for: a grant, or a refusal because the node holds another value. */
    private static boolean inTime(NodeVote.Vote vote) {
        return vote == NodeVote.Vote.ACQUIRED || vote == NodeVote.Vote.HELD_BY_OTHER;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void grantedIffAtLeastThreeNodesAreFreeWhenTheOthersAreHeldByAnotherValue() throws Exception {
        List<RedisServer> servers = redis.servers();
        List<String> rows = new ArrayList<>();
        try (Coordis client = TestClients.connect(redis.uris())) {
            RedlockNodes.warmUp(client, N);
            for (int subset = 0; subset < 1 << N; subset++) {
                int mask = subset;
                String name = "quorum:held:" + mask;
                String key = Prefixed.key(name);
                int unavailable = Integer.bitCount(mask);
                try {
                    for (int i = 0; i < N; i++) {
                        if (held(mask, i)) {
                            servers.get(i).command("SET", key, "other", "PX", "10000");
                        }
                    }
                    // no node is slow here: a generous node timeout, so a loaded machine cannot turn a free node
                    // into a timeout
                    Optional<Lease> got = client.lock(name, OPTIONS.withNodeTimeout(Duration.ofSeconds(2))).tryAcquire();
                    rows.add(mask + ":" + (got.isPresent() ? "granted" : "refused"));
                    assertThat(got.isPresent()).as("held on %s: granted", nodes(mask)).isEqualTo(N - unavailable >= 3);
                    if (got.isPresent()) {
                        Lease lease = got.get();
                        assertThat(lease.votes()).hasSize(N);
                        for (int i = 0; i < N; i++) {
                            // a node answering later than the majority's decision (plus a grace) is not awaited
                            assertThat(lease.votes().get(i).vote()).as("vote of node %d, held on %s", i, nodes(mask))
                                    .isIn(held(mask, i) ? NodeVote.Vote.HELD_BY_OTHER : NodeVote.Vote.ACQUIRED,
                                            NodeVote.Vote.NOT_AWAITED);
                        }
                        for (int i = 0; i < N; i++) {
                            if (!held(mask, i)) {
                                RedisServer server = servers.get(i);
                                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2))
                                        .until(() -> lease.token().equals(server.command("GET", key)));
                            }
                        }
                        assertThat(lease.release()).isTrue();
                    }
                    RedlockNodes.awaitValues(servers, key, SETTLE,
                            (i, v) -> held(mask, i) ? "other".equals(v) : v == null,
                            "released on every free node, foreign value kept, held on " + nodes(mask));
                } finally {
                    for (RedisServer s : servers) {
                        s.command("DEL", key);
                    }
                }
            }
        }
        assertThat(rows).hasSize(32);
        System.out.println("quorum table (held by another value): " + rows);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void grantedIffAtLeastThreeNodesAnswerWhenTheOthersAreBlackholed() throws Exception {
        List<RedisServer> servers = redis.servers();
        List<FaultProxy> proxies = new ArrayList<>();
        Coordis client = null;
        List<String> rows = new ArrayList<>();
        long slowest = 0;
        try {
            for (RedisServer s : servers) {
                proxies.add(FaultProxy.to(s));
            }
            client = TestClients.builder().urls(proxies.stream().map(FaultProxy::uri).toList())
                    .commandTimeout(Duration.ofMillis(500)).connect();
            RedlockNodes.warmUp(client, N);
            for (int subset = 0; subset < 1 << N; subset++) {
                int mask = subset;
                String name = "quorum:dark:" + mask;
                String key = Prefixed.key(name);
                int unavailable = Integer.bitCount(mask);
                try {
                    for (int i = 0; i < N; i++) {
                        if (held(mask, i)) {
                            proxies.get(i).blackhole();
                        }
                    }
                    DistributedLock lock = client.lock(name, OPTIONS);
                    long start = System.nanoTime();
                    Lease lease = null;
                    QuorumUnavailableException failure = null;
                    try {
                        lease = lock.tryAcquire().orElse(null);
                    } catch (QuorumUnavailableException e) {
                        failure = e;
                    }
                    long took = System.nanoTime() - start;
                    slowest = Math.max(slowest, took);
                    rows.add(mask + ":" + (lease != null ? "granted" : failure != null ? "unavailable" : "empty")
                            + "/" + took / 1_000_000 + "ms");
                    assertThat(Duration.ofNanos(took)).as("attempt with %s blackholed", nodes(mask))
                            .isLessThan(ATTEMPT_BOUND);
                    assertThat(lease != null).as("blackholed %s: granted (failure: %s)", nodes(mask), failure)
                            .isEqualTo(N - unavailable >= 3);
                    List<NodeVote> votes = lease != null ? lease.votes() : failure != null ? failure.votes() : null;
                    if (unavailable > 0) {
                        assertThat(votes).as("a refusal with %s blackholed says why", nodes(mask)).isNotNull();
                    }
                    if (votes != null) {
                        assertThat(votes).hasSize(N);
                        for (int i = 0; i < N; i++) {
                            NodeVote v = votes.get(i);
                            assertThat(v.node()).isEqualTo(proxies.get(i).address());
                            if (held(mask, i)) {
                                // not awaited once a majority granted
                                assertThat(v.vote()).as("vote of blackholed node %d", i)
                                        .isIn(NodeVote.Vote.TIMEOUT, NodeVote.Vote.ERROR, NodeVote.Vote.NOT_AWAITED);
                            } else {
                                // a free node late by more than the grace on a loaded machine is not awaited either
                                assertThat(v.vote()).as("vote of free node %d", i)
                                        .isIn(NodeVote.Vote.ACQUIRED, NodeVote.Vote.NOT_AWAITED);
                            }
                        }
                    }
                    if (failure != null) {
                        for (int i = 0; i < N; i++) {
                            if (held(mask, i)) {
                                assertThat(failure.getMessage()).as("names failed node %d and its vote", i)
                                        .contains(failure.votes().get(i).toString())
                                        .contains(proxies.get(i).address() + " timeout");
                            }
                        }
                        assertThat(failure.getMessage()).contains("failed nodes: ");
                    }
                    if (lease != null) {
                        lease.release();
                    }
                    // a failed attempt releases without waiting; the free nodes answer, so it lands there
                    RedlockNodes.awaitValues(servers, key, SETTLE, (i, v) -> held(mask, i) || v == null,
                            "released on the free nodes with " + nodes(mask) + " blackholed");
                } finally {
                    // drop what the black holes held back (those SETs must never arrive), then heal
                    for (int i = 0; i < N; i++) {
                        if (held(mask, i)) {
                            proxies.get(i).resetAll().pass().resetAll();
                        }
                    }
                }
                RedlockNodes.awaitValues(servers, key, SETTLE, (i, v) -> v == null,
                        "nothing of ours on any node after healing " + nodes(mask));
                RedlockNodes.warmUp(client, N);
            }
        } finally {
            if (client != null) {
                client.close();
            }
            proxies.forEach(FaultProxy::close);
        }
        System.out.println("quorum table (blackholed), slowest attempt " + slowest / 1_000_000 + " ms: " + rows);
    }

    private static boolean held(int mask, int node) {
        return (mask & 1 << node) != 0;
    }

    private static List<Integer> nodes(int mask) {
        List<Integer> nodes = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            if (held(mask, i)) {
                nodes.add(i);
            }
        }
        return nodes;
    }
}
