package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.bench.LettuceLocking;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A quick, uncontended Redlock loop on 7 real redis-servers, in one run with the implementations
 * interleaved (alternating order) over several rounds:
 * <ul>
 *   <li>acquire+release ops/s on 5 nodes: Coordis Redlock against the same cycle in raw Lettuce commands,
 *       once sequential (SET NX PX on node 1, then node 2, ...; then compare-and-delete on each) and once
 *       parallel (SET NX PX sent to all nodes at once, then compare-and-delete to all at once);</li>
 *   <li>the latency of Coordis' acquire alone (median, p99) with 3, 5 and 7 nodes;</li>
 *   <li>the commands one Coordis cycle costs a node (INFO commandstats), to see where time goes.</li>
 * </ul>
 * The restart guard stays on (the default): the loop first waits until every server has been up longer
 * than the lock TTL + 1 s, as the guard requires. Not a benchmark suite: first ratios. Run with
 * {@code coordis-bench/run quick QuickRedlockLoop [ops] [rounds]}.
 */
public final class QuickRedlockLoop {
    private static final long TTL_MILLIS = 30_000; // the Coordis default, used by the raw versions too
    private static final int[] LATENCY_NODES = {3, 5, 7};

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 3_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (RedisGroup group = RedisGroup.masters(7)) {
            List<String> uris = group.uris();
            long start = System.nanoTime();
            awaitUptime(group, Duration.ofMillis(TTL_MILLIS).plusSeconds(2));
            System.out.printf("redis %s, 7 servers; waited %.0f s for uptime > TTL + 1 s (restart guard on)%n",
                    group.server(0).version(), (System.nanoTime() - start) / 1e9);

            Coordis[] clients = new Coordis[LATENCY_NODES.length];
            DistributedLock[] locks = new DistributedLock[LATENCY_NODES.length];
            for (int i = 0; i < LATENCY_NODES.length; i++) {
                clients[i] = Coordis.connect(uris.subList(0, LATENCY_NODES[i]));
                locks[i] = clients[i].lock("quick:coordis:" + LATENCY_NODES[i]);
            }
            DistributedLock five = locks[1];
            LettuceLocking sequential = new LettuceLocking(uris.subList(0, 5), LettuceLocking.Fanout.SEQUENTIAL);
            LettuceLocking parallel = new LettuceLocking(uris.subList(0, 5), LettuceLocking.Fanout.PARALLEL);
            try {
                Runnable coordisCycle = () -> five.tryAcquire().orElseThrow().close();
                Runnable sequentialCycle = () -> cycle(sequential, "quick:raw:sequential");
                Runnable parallelCycle = () -> cycle(parallel, "quick:raw:parallel");
                for (DistributedLock lock : locks) {
                    Interleaved.rate(() -> lock.tryAcquire().orElseThrow().close(), ops / 2);
                }
                Interleaved.rate(sequentialCycle, ops / 2);
                Interleaved.rate(parallelCycle, ops / 2);

                System.out.printf("%d ops per measurement, %d rounds, interleaved, uncontended, 5 nodes%n", ops, rounds);
                double[] vsSequential = new double[rounds];
                double[] vsParallel = new double[rounds];
                List<List<Long>> latencies = new ArrayList<>();
                for (int n : LATENCY_NODES) {
                    latencies.add(new ArrayList<>());
                }
                String[] names = {"coordis", "sequential", "parallel"};
                Runnable[] cycles = {coordisCycle, sequentialCycle, parallelCycle};
                for (int r = 0; r < rounds; r++) {
                    double[] rate = Interleaved.round(r, ops, cycles);
                    vsSequential[r] = rate[0] / rate[1];
                    vsParallel[r] = rate[0] / rate[2];
                    System.out.printf("round %d (%s): coordis %.0f ops/s, raw sequential %.0f ops/s, raw parallel %.0f ops/s;"
                                    + " coordis/sequential %.2f, coordis/parallel %.2f%n", r + 1,
                            r % 2 == 0 ? String.join(", ", names) : names[2] + ", " + names[1] + ", " + names[0],
                            rate[0], rate[1], rate[2], vsSequential[r], vsParallel[r]);
                    for (int k = 0; k < LATENCY_NODES.length; k++) {
                        int which = r % 2 == 0 ? k : LATENCY_NODES.length - 1 - k;
                        latencies.get(which).addAll(acquireLatencies(locks[which], ops / 2));
                    }
                }
                summary("coordis / raw sequential", vsSequential);
                summary("coordis / raw parallel", vsParallel);
                for (int k = 0; k < LATENCY_NODES.length; k++) {
                    long[] ns = latencies.get(k).stream().mapToLong(Long::longValue).sorted().toArray();
                    System.out.printf("coordis acquire latency, %d nodes: median %.3f ms, p99 %.3f ms (%d samples)%n",
                            LATENCY_NODES[k], ns[ns.length / 2] / 1e6, ns[(int) (ns.length * 0.99)] / 1e6, ns.length);
                }
                commandsPerCycle(group.server(0), "coordis", coordisCycle, ops);
                commandsPerCycle(group.server(0), "raw parallel", parallelCycle, ops);
            } finally {
                sequential.close();
                parallel.close();
                for (Coordis c : clients) {
                    c.close();
                }
            }
        }
    }

    /** One uncontended acquire and release of the raw Redlock {@code raw}; fails when it is not granted. */
    private static void cycle(LettuceLocking raw, String key) {
        Object held = raw.tryLock(key);
        if (held == null) {
            throw new IllegalStateException("raw lock on '" + key + "' not granted");
        }
        raw.unlock(held);
    }

    /** Blocks until every server has been up at least {@code uptime} (INFO server, whole seconds). */
    private static void awaitUptime(RedisGroup group, Duration uptime) throws InterruptedException {
        for (RedisServer s : group.servers()) {
            while (Long.parseLong(s.info("server").get("uptime_in_seconds")) < uptime.toSeconds()) {
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    /** Times {@code tryAcquire} alone; the release after each is not timed. */
    private static List<Long> acquireLatencies(DistributedLock lock, int ops) {
        List<Long> ns = new ArrayList<>(ops);
        for (int i = 0; i < ops; i++) {
            long start = System.nanoTime();
            Lease lease = lock.tryAcquire().orElseThrow();
            ns.add(System.nanoTime() - start);
            lease.close();
        }
        return ns;
    }

    private static void summary(String what, double[] ratios) {
        System.out.printf("median ratio %s: %s%n", what, Interleaved.spread(ratios));
    }

    /**
     * What one cycle costs one node: the commands it ran per cycle (INFO commandstats, which counts the
     * commands a script runs as well as the script call itself, one round trip).
     */
    private static void commandsPerCycle(RedisServer node, String name, Runnable cycle, int ops) {
        node.command("CONFIG", "RESETSTAT");
        Interleaved.rate(cycle, ops);
        Map<String, Long> calls = new TreeMap<>();
        for (Map.Entry<String, String> e : node.info("commandstats").entrySet()) {
            String cmd = e.getKey().replace("cmdstat_", "");
            if (cmd.startsWith("info") || cmd.startsWith("config")) {
                continue;
            }
            String value = e.getValue();
            long n = Long.parseLong(value.substring(value.indexOf("calls=") + 6, value.indexOf(',')));
            calls.put(cmd, n);
        }
        StringBuilder sb = new StringBuilder();
        calls.forEach((cmd, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(cmd).append(' ')
                .append(String.format("%.2f", n / (double) ops)));
        System.out.printf("%s, per cycle on node 1: %s%n", name, sb);
    }
}
