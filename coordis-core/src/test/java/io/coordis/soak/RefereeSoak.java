package io.coordis.soak;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.Nemesis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Negative controls of the soak's referees: the harness must fail a run whose workload is deliberately broken.
 * A lock whose holders all write with fencing number 0 ({@code no-fence}) under the single-node nemesis, and the
 * counter election without its local term check, whose leader is stalled past its term, each for 30 s: the run
 * fails naming the check (fenced violations; writes refused as stale). Their sections in the report are marked
 * failed.
 */
class RefereeSoak {
    private static final Duration RUN = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void aLockWithoutFencingFailsTheRun() throws Exception {
        long seed = SoakSettings.seed("RefereeSoak");
        try (RedisServer redis = LockSoak.server(null);
             FaultProxy proxy = FaultProxy.to(redis)) {
            Harness harness = new Harness("RefereeSoak", "negative control: holders writing without their fencing number",
                    seed).add(new FencedLocks("lock", proxy.address(), "soak:broken-lock", dir.resolve("lock"), true,
                            "no-fence"))
                    .nemesis(pids -> LockSoak.singleNode(seed, redis, proxy, null, pids));
            assertThatThrownBy(() -> harness.run(RUN)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("0 fenced violations among lock holders");
        }
    }

    @Test
    void theCounterElectionWithoutItsTermCheckFailsTheRun() throws Exception {
        long seed = SoakSettings.seed("RefereeSoak");
        try (RedisServer redis = LockSoak.server(null);
             FaultProxy proxy = FaultProxy.to(redis)) {
            Harness harness = new Harness("RefereeSoak", "negative control: the counter election without its term check",
                    seed).add(CounterCandidates.withoutTermCheck(proxy.address(), "soak:broken-counter"))
                    .nemesis(pids -> Nemesis.builder(seed).proxies(List.of(proxy)).kinds(EnumSet.of(Nemesis.Kind.LATENCY))
                            .gap(Duration.ofMillis(1500), Duration.ofMillis(2500))
                            .hold(Duration.ofMillis(300), Duration.ofMillis(1200)).build());
            assertThatThrownBy(() -> harness.run(RUN)).isInstanceOf(AssertionError.class)
                    .hasMessageContaining("0 writes refused as stale");
        }
    }
}
