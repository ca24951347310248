package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.Replication;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.RedisGroup;

import java.time.Duration;
import java.util.Arrays;

/**
 * What waiting for a replica costs an acquire on loopback: uncontended {@code tryAcquire} + {@code release} cycles of
 * one lock without the wait and of another with {@code Replication.toReplicas(1, 500ms)}, alternating in rounds, on a
 * master with one replica; prints the median and 99th percentile of the acquire alone (the figures of docs/safety.md,
 * "Replicated acquisitions"). Not a benchmark suite: a first figure. Run with
 * {@code coordis-bench/run quick QuickReplicatedAcquire [cycles per round] [rounds]} (default 50 and 6).
 */
public final class QuickReplicatedAcquire {
    public static void main(String[] args) throws Exception {
        int perRound = QuickRun.arg(args, 0, 50);
        int rounds = QuickRun.arg(args, 1, 6);
        try (RedisGroup group = RedisGroup.masterWithReplicas(1);
             Coordis coordis = Coordis.connect(group.master().uri())) {
            DistributedLock plain = coordis.lock("quick:replicated:plain");
            DistributedLock waiting = coordis.lock("quick:replicated:waiting",
                    LockOptions.defaults().withReplication(Replication.toReplicas(1, Duration.ofMillis(500))));
            long[] without = new long[perRound * rounds];
            long[] with = new long[perRound * rounds];
            for (int r = 0; r < rounds; r++) {
                cycles(plain, without, r * perRound, perRound);
                cycles(waiting, with, r * perRound, perRound);
            }
            System.out.printf("redis %s, master and 1 replica, %d acquires each way in %d rounds, alternating%n",
                    group.master().version(), perRound * rounds, rounds);
            System.out.printf("acquire without wait: p50 %d us, p99 %d us; with WAIT 1: p50 %d us, p99 %d us%n",
                    percentile(without, 50), percentile(without, 99), percentile(with, 50), percentile(with, 99));
        }
    }

    /** {@code n} acquire-and-release cycles, each acquire's time in microseconds into {@code micros} from {@code from}. */
    private static void cycles(DistributedLock lock, long[] micros, int from, int n) {
        for (int i = from; i < from + n; i++) {
            long start = System.nanoTime();
            Lease lease = lock.tryAcquire().orElseThrow();
            micros[i] = (System.nanoTime() - start) / 1000;
            lease.release();
        }
    }

    private static long percentile(long[] values, int p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }
}
