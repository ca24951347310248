package io.coordis.bench;

import io.coordis.testkit.RedisGroup;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The uncontended lock cycle of several lock clients in <em>one</em> JVM on one thread, interleaved in short
 * blocks (a block of cycles of each client in turn, the order rotated every block), against one
 * redis-server the test kit starts. The suite runs each implementation in a fresh JVM, as the comparison
 * with Redisson needs; but one implementation's throughput then spreads by a quarter and more from one JVM
 * to the next (where its threads land on two cores, what the JIT compiled), so a few rounds cannot tell
 * apart two clients that send the same commands. Here every client shares the JVM, the JIT's state, the
 * heap and the minute, and hundreds of block ratios are summarised. It compares the clients' own costs,
 * not cold starts: blocks in the first third are discarded.
 *
 * <p>With {@code --threads N} each client's block is N threads at once, each doing the cycles on a key of its
 * own (the many-keys case, where a client's cost under concurrency shows). Besides cycles per second it
 * reports the process's CPU time per cycle while that client's block ran: every thread of the JVM counts
 * (the JIT and GC too, and the other clients' idle threads), so it is a comparison, not an absolute cost;
 * the JVM reads process CPU time in clock ticks (10 ms), so a block should last well over a second.
 *
 * <pre>usage: SameJvmLocks [--blocks N] [--cycles N] [--threads N] [IMPL ...]   (default 90 blocks of 1000
 *        cycles per thread, 1 thread; coordis lettuce-scripts lettuce)</pre>
 * The first client is the one every ratio is about (first ÷ each other, cycles per second).
 */
public final class SameJvmLocks {
    private SameJvmLocks() {
    }

    /** Per block {@code b} and client {@code c}: cycles per second and process CPU microseconds per cycle. */
    record Measured(double[][] rates, double[][] cpuUsPerCycle) {
    }

    public static void main(String[] args) throws Exception {
        int blocks = 90;
        int cycles = 1000;
        int threads = 1;
        List<String> impls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--blocks" -> blocks = positive(args, ++i);
                case "--cycles" -> cycles = positive(args, ++i);
                case "--threads" -> threads = positive(args, ++i);
                default -> {
                    if (args[i].startsWith("-")) {
                        System.err.println("unknown option " + args[i]
                                + "; options: --blocks N, --cycles N, --threads N, then lock clients");
                        System.exit(2);
                    }
                    impls.add(args[i]);
                }
            }
        }
        if (impls.isEmpty()) {
            impls = List.of("coordis", "lettuce-scripts", "lettuce");
        }
        for (String impl : impls) {
            if (!Scenarios.SINGLE_LOCKS.contains(impl)) {
                System.err.println("no lock client named '" + impl + "'; choose from "
                        + String.join(", ", Scenarios.SINGLE_LOCKS));
                System.exit(2);
            }
        }
        if (blocks < 3) {
            System.err.println("--blocks must be at least 3 (the first third is warm-up), was " + blocks);
            System.exit(2);
        }
        try (RedisGroup group = RedisGroup.masters(1)) {
            String uri = group.server(0).uri();
            List<Locking> clients = new ArrayList<>();
            try {
                for (String impl : impls) {
                    clients.add(Scenarios.locking(impl, List.of(uri)));
                }
                Measured measured = run(clients, blocks, cycles, threads);
                System.out.print(report(impls, measured, blocks / 3, cycles, threads));
            } finally {
                clients.forEach(Locking::close);
            }
        }
    }

    /**
     * Runs {@code blocks} blocks; in each, every client in turn (order rotated per block) does {@code cycles}
     * lock cycles on each of {@code threads} threads at once, thread {@code t} of client {@code c} on key
     * {@code bench:samejvm:c:t}.
     */
    static Measured run(List<Locking> clients, int blocks, int cycles, int threads)
            throws InterruptedException, ExecutionException {
        double[][] rates = new double[blocks][];
        double[][] cpu = new double[blocks][];
        try (Blocks runner = new Blocks(clients, cycles, threads)) {
            for (int b = 0; b < blocks; b++) {
                runner.block(b, rates[b] = new double[clients.size()], cpu[b] = new double[clients.size()]);
            }
        }
        return new Measured(rates, cpu);
    }

    /** Runs blocks one at a time: in block {@code b} every client in turn, the order rotated by {@code b}. */
    static final class Blocks implements AutoCloseable {
        private final List<Locking> clients;
        private final int cycles;
        private final int threads;
        private final ExecutorService pool;
        private final com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        Blocks(List<Locking> clients, int cycles, int threads) {
            this.clients = List.copyOf(clients);
            this.cycles = cycles;
            this.threads = threads;
            this.pool = threads == 1 ? null : Executors.newFixedThreadPool(threads);
        }

        /** Block {@code b}: fills client {@code c}'s cycles per second and CPU µs per cycle. */
        void block(int b, double[] rates, double[] cpu) throws InterruptedException, ExecutionException {
            int n = clients.size();
            for (int j = 0; j < n; j++) {
                int c = (b + j) % n;
                Locking client = clients.get(c);
                long cpuStart = os.getProcessCpuTime();
                long start = System.nanoTime();
                if (pool == null) {
                    cycles(client, "bench:samejvm:" + c + ":0", cycles);
                } else {
                    List<Callable<Void>> work = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        String key = "bench:samejvm:" + c + ":" + t;
                        work.add(() -> {
                            cycles(client, key, cycles);
                            return null;
                        });
                    }
                    for (Future<Void> done : pool.invokeAll(work)) {
                        done.get(); // a failed cycle fails the run
                    }
                }
                long total = (long) cycles * threads;
                rates[c] = total * 1e9 / (System.nanoTime() - start);
                cpu[c] = (os.getProcessCpuTime() - cpuStart) / 1e3 / total;
            }
        }

        @Override
        public void close() {
            if (pool != null) {
                pool.shutdownNow();
            }
        }
    }

    private static void cycles(Locking client, String key, int cycles) throws InterruptedException {
        for (int i = 0; i < cycles; i++) {
            client.unlock(client.lock(key));
        }
    }

    static String report(List<String> impls, Measured measured, int warmup, int cycles, int threads) {
        double[][] rates = measured.rates();
        double[][] cpu = measured.cpuUsPerCycle();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d blocks of %d uncontended lock cycles per client and thread, %d thread%s"
                        + " on keys of their own, first %d blocks discarded; median [min-max] over blocks%n",
                rates.length, cycles, threads, threads == 1 ? "" : "s", warmup));
        int n = impls.size();
        int kept = rates.length - warmup;
        for (int c = 0; c < n; c++) {
            double[] own = new double[kept];
            double[] ratio = new double[kept];
            double[] ownCpu = new double[kept];
            double[] cpuRatio = new double[kept];
            for (int b = warmup; b < rates.length; b++) {
                own[b - warmup] = rates[b][c];
                ratio[b - warmup] = rates[b][0] / rates[b][c];
                ownCpu[b - warmup] = cpu[b][c];
                cpuRatio[b - warmup] = cpu[b][0] / cpu[b][c];
            }
            Summary s = Summary.of(own);
            Summary u = Summary.of(ownCpu);
            out.append(String.format(Locale.ROOT, "%-16s %,8.0f cycles/s [%,.0f-%,.0f]  CPU %,.1f us/cycle [%,.1f-%,.1f]",
                    impls.get(c), s.median(), s.min(), s.max(), u.median(), u.min(), u.max()));
            if (c > 0) {
                Summary r = Summary.of(ratio);
                Summary rc = Summary.of(cpuRatio);
                out.append(String.format(Locale.ROOT, "   %s / this: cycles/s %.3f [%.3f-%.3f], CPU/cycle %.3f [%.3f-%.3f]",
                        impls.get(0), r.median(), r.min(), r.max(), rc.median(), rc.min(), rc.max()));
            }
            out.append(System.lineSeparator());
        }
        return out.toString();
    }

    private static int positive(String[] args, int i) {
        try {
            int v = Integer.parseInt(args[i]);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            // reported below
        }
        System.err.println(args[i - 1] + " needs a positive whole number");
        System.exit(2);
        return 0;
    }
}
