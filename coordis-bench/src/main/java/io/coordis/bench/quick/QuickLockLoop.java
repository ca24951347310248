package io.coordis.bench.quick;

import io.coordis.lock.DistributedLock;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A quick, uncontended acquire+release loop: Coordis against the same cycle in raw Lettuce commands
 * (SET NX PX, then the compare-and-delete script), interleaved in one run on one redis-server. Not a
 * benchmark suite: a first ratio. Run with {@code coordis-bench/run quick QuickLockLoop [ops] [rounds]}.
 */
public final class QuickLockLoop {
    public static void main(String[] args) throws Exception {
        int ops = QuickRun.arg(args, 0, 20_000);
        int rounds = QuickRun.arg(args, 1, 5);
        try (QuickRun quick = QuickRun.start()) {
            DistributedLock lock = quick.coordis.lock("quick:coordis");
            Runnable coordisCycle = () -> lock.tryAcquire().orElseThrow().close();
            Runnable rawCycle = RawLock.cycle(quick.raw, () -> "quick:raw");
            Interleaved.rate(coordisCycle, ops / 4);
            Interleaved.rate(rawCycle, ops / 4);
            System.out.printf("redis %s, %d ops per round, %d rounds, interleaved%n", quick.server.version(), ops, rounds);
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                double[] rates = Interleaved.round(r, ops, coordisCycle, rawCycle);
                ratios[r] = rates[0] / rates[1];
                System.out.printf("round %d: coordis %.0f ops/s, raw lettuce %.0f ops/s, ratio %.2f%n", r + 1, rates[0],
                        rates[1], ratios[r]);
            }
            System.out.printf("median ratio coordis / raw lettuce: %s%n", Interleaved.spread(ratios));
        }
    }
}
