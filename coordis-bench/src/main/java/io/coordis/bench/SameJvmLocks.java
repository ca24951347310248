package io.coordis.bench;

import io.coordis.testkit.RedisGroup;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
 * <pre>usage: SameJvmLocks [--blocks N] [--cycles N] [IMPL ...]   (default 90 blocks of 1000 cycles;
 *        coordis lettuce-scripts lettuce)</pre>
 * The first client is the one every ratio is about (first ÷ each other, cycles per second).
 */
public final class SameJvmLocks {
    private SameJvmLocks() {
    }

    public static void main(String[] args) throws Exception {
        int blocks = 90;
        int cycles = 1000;
        List<String> impls = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--blocks" -> blocks = positive(args, ++i);
                case "--cycles" -> cycles = positive(args, ++i);
                default -> {
                    if (args[i].startsWith("-")) {
                        System.err.println("unknown option " + args[i] + "; options: --blocks N, --cycles N, then lock clients");
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
                double[][] rates = run(clients, blocks, cycles);
                System.out.print(report(impls, rates, blocks / 3, cycles));
            } finally {
                clients.forEach(Locking::close);
            }
        }
    }

    /** Cycles per second of client {@code c} in block {@code b}, as {@code rates[b][c]}. */
    static double[][] run(List<Locking> clients, int blocks, int cycles) throws InterruptedException {
        int n = clients.size();
        double[][] rates = new double[blocks][n];
        for (int b = 0; b < blocks; b++) {
            for (int j = 0; j < n; j++) {
                int c = (b + j) % n;
                Locking client = clients.get(c);
                String key = "bench:samejvm:" + c;
                long start = System.nanoTime();
                for (int i = 0; i < cycles; i++) {
                    client.unlock(client.lock(key));
                }
                rates[b][c] = cycles * 1e9 / (System.nanoTime() - start);
            }
        }
        return rates;
    }

    static String report(List<String> impls, double[][] rates, int warmup, int cycles) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d blocks of %d uncontended lock cycles per client, first %d discarded; "
                + "median [min-max] over blocks%n", rates.length, cycles, warmup));
        int n = impls.size();
        for (int c = 0; c < n; c++) {
            double[] own = new double[rates.length - warmup];
            double[] ratio = new double[rates.length - warmup];
            for (int b = warmup; b < rates.length; b++) {
                own[b - warmup] = rates[b][c];
                ratio[b - warmup] = rates[b][0] / rates[b][c];
            }
            Summary s = Summary.of(own);
            out.append(String.format(Locale.ROOT, "%-16s %,8.0f cycles/s [%,.0f-%,.0f]", impls.get(c), s.median(), s.min(), s.max()));
            if (c > 0) {
                Summary r = Summary.of(ratio);
                out.append(String.format(Locale.ROOT, "   %s / this %.3f [%.3f-%.3f]", impls.get(0), r.median(), r.min(), r.max()));
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
