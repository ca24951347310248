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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fencing numbers keep growing when consecutive acquisitions are granted by different majorities, because
 * the largest number is written back to every granting node. The same sequence numbered the naive way
 * (the largest INCR among the granting nodes, nothing written back) goes down, which is why the
 * write-back exists.
 */
class RedlockFencingIT {
    private static final int N = 5;
    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(10))
            .withAutoRenew(false).withRestartGuard(false);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(N);

    /** Many grants on one majority, many on an overlapping one, then majorities that meet each in one node. */
    private static List<Set<Integer>> sequence() {
        List<Set<Integer>> seq = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            seq.add(Set.of(0, 1, 2));
        }
        for (int i = 0; i < 10; i++) {
            seq.add(Set.of(2, 3, 4));
        }
        seq.add(Set.of(0, 1, 3));
        seq.add(Set.of(0, 3, 4));
        seq.add(Set.of(1, 2, 4));
        seq.add(Set.of(0, 1, 2, 3, 4));
        seq.add(Set.of(0, 2, 4));
        seq.add(Set.of(1, 3, 4));
        return seq;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fencingNumbersStrictlyIncreaseAcrossDifferentMajorities() throws Exception {
        List<RedisServer> servers = redis.servers();
        String name = "fence:majorities";
        String fenceKey = Prefixed.derived(name, "fence");
        List<Long> fences = new ArrayList<>();
        try (Coordis client = TestClients.connect(redis.uris())) {
            RedlockNodes.warmUp(client, N);
            DistributedLock lock = client.lock(name, OPTIONS);
            for (Set<Integer> majority : sequence()) {
                try {
                    blockAllBut(servers, name, majority);
                    Lease lease = lock.tryAcquire().orElseThrow(() -> new AssertionError("not granted by " + majority));
                    try {
                        for (int i = 0; i < N; i++) {
                            // a node answering later than the majority's decision (plus a grace) is not awaited
                            assertThat(lease.votes().get(i).vote()).as("node %d voting for majority %s", i, majority)
                                    .isIn(majority.contains(i) ? NodeVote.Vote.ACQUIRED : NodeVote.Vote.HELD_BY_OTHER,
                                            NodeVote.Vote.NOT_AWAITED);
                        }
                        long fence = lease.fencingToken();
                        if (!fences.isEmpty()) {
                            assertThat(fence).as("fence after %s, sequence so far %s", majority, fences)
                                    .isGreaterThan(fences.get(fences.size() - 1));
                        }
                        fences.add(fence);
                        // what the next majority relies on: a majority of nodes hold the granted number before the
                        // lease is handed out (a granting node answering after the decision may get it a moment later)
                        int raised = 0;
                        for (int i = 0; i < N; i++) {
                            Object counter = servers.get(i).command("GET", fenceKey);
                            long value = counter == null ? 0 : Long.parseLong(counter.toString());
                            assertThat(value).as("counter on node %d (votes %s)", i, lease.votes()).isLessThanOrEqualTo(fence);
                            raised += value == fence ? 1 : 0;
                        }
                        assertThat(raised).as("nodes holding fence %d (votes %s)", fence, lease.votes())
                                .isGreaterThanOrEqualTo(N / 2 + 1);
                    } finally {
                        assertThat(lease.release()).isTrue();
                    }
                } finally {
                    for (RedisServer s : servers) {
                        s.command("DEL", Prefixed.key(name));
                    }
                }
            }
        }
        System.out.println("fences across majorities: " + fences);
        assertThat(fences).hasSize(sequence().size());
    }

    /**
     * Negative control: per acquisition the largest INCR over the granting nodes, with no write-back.
     * After 20 grants on {0,1,2} and 10 on {2,3,4}, the majority {0,1,3} counts 21 while 30 was handed out.
     */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void withoutWriteBackTheSameSequenceGoesDown() {
        List<RedisServer> servers = redis.servers();
        String naiveKey = Prefixed.derived("fence:naive", "fence");
        List<Long> fences = new ArrayList<>();
        int decreases = 0;
        for (Set<Integer> majority : sequence()) {
            long fence = 0;
            for (int i : majority) {
                fence = Math.max(fence, (Long) servers.get(i).command("INCR", naiveKey));
            }
            if (!fences.isEmpty() && fence <= fences.get(fences.size() - 1)) {
                decreases++;
            }
            fences.add(fence);
        }
        System.out.println("naive fences: " + fences);
        assertThat(decreases).as("naive numbering must go down somewhere: %s", fences).isPositive();
        assertThat(fences.get(30)).as("{0,1,3} after 30 grants").isEqualTo(21L).isLessThan(fences.get(29));
    }

    /** Holds {@code name} with another value on every node outside {@code majority}. */
    private static void blockAllBut(List<RedisServer> servers, String name, Set<Integer> majority) {
        for (int i = 0; i < N; i++) {
            if (!majority.contains(i)) {
                servers.get(i).command("SET", Prefixed.key(name), "other", "PX", "10000");
            }
        }
    }
}
