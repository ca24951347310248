package io.coordis.latch;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Latches on a 3-master Redis Cluster, one on each master: each key is on the master of its slot, and waiters hear
 * the opening whichever node they subscribed on.
 */
class LatchClusterIT {
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void latchesOnEveryMasterOpenForTheirWaiters() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().masters(3).start();
             Coordis coordis = TestClients.connect(cluster.uri())) {
            List<String> names = cluster.keysOnEveryMaster(Prefixed.key("latch:c")).stream()
                    .map(key -> key.substring(Prefixed.prefix().length())).toList();
            List<CountDownLatch> latches = new ArrayList<>();
            List<CompletableFuture<Boolean>> waits = new ArrayList<>();
            for (String name : names) {
                CountDownLatch latch = coordis.countDownLatch(name, 2, Duration.ofMinutes(1));
                latches.add(latch);
                waits.add(latch.awaitAsync(Duration.ofSeconds(30)));
            }
            for (CountDownLatch latch : latches) {
                assertThat(latch.countDown()).isEqualTo(1);
                assertThat(latch.countDown()).isZero();
                assertThat(cluster.masterForKey(latch.key()).command("GET", latch.key())).isEqualTo("0");
            }
            for (CompletableFuture<Boolean> w : waits) {
                assertThat(w.get(20, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(latches.get(0).await(Duration.ZERO)).isTrue();
        }
    }
}
