package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The multi-lock on a Redis Cluster with names in different slots: each slot taken by its own call in one global
 * order, so two clients naming the same slots in opposite orders never deadlock; every name an ordinary lock on the
 * master of its slot.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MultiLockClusterIT {
    private static final List<String> NAMES = List.of("mc:a", "mc:b", "mc:c", "{mc:a}:two");
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.builder().masters(3).start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void namesAcrossSlotsInOppositeOrdersNeverDeadlockAndEachIsAnOrdinaryLock() throws Exception {
        assertThat(NAMES.stream().map(n -> RedisCluster.slot(Prefixed.key(n))).distinct().count())
                .as("the names span several slots").isGreaterThanOrEqualTo(3);
        try (Coordis one = TestClients.connect(cluster.uri()); Coordis two = TestClients.connect(cluster.uri())) {
            MultiLock forward = one.multiLock(NAMES);
            MultiLock backward = two.multiLock(List.of("{mc:a}:two", "mc:c", "mc:b", "mc:a"));
            try (MultiLease lease = forward.acquire(Duration.ofSeconds(10)).orElseThrow()) {
                assertThat(lease.fencingTokens()).containsOnlyKeys(NAMES);
                for (String n : NAMES) {
                    LockHolder holder = two.lock(n).holder().orElseThrow();
                    assertThat(holder.token()).isEqualTo(lease.token());
                    assertThat(holder.fencingToken()).hasValue(lease.fencingTokens().get(n));
                }
                assertThat(backward.tryAcquire()).as("busy while held").isEmpty();
                assertThat(two.lock("mc:c").tryAcquire()).isEmpty();
            }
            List<Long> fences = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<?>[] runs = IntStream.range(0, 2).mapToObj(i -> CompletableFuture.runAsync(() -> {
                MultiLock lock = i == 0 ? forward : backward;
                for (int round = 0; round < 300; round++) {
                    try (MultiLease lease = lock.acquire(Duration.ofSeconds(20)).orElseThrow()) {
                        fences.add(lease.fencingTokens().get("mc:b"));
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            })).toArray(CompletableFuture[]::new);
            CompletableFuture.allOf(runs).get(60, TimeUnit.SECONDS);
            assertThat(fences).hasSize(600).doesNotHaveDuplicates();
            for (String n : NAMES) {
                assertThat(one.lock(n).holder()).as("%s released", n).isEmpty();
            }
        }
    }
}
