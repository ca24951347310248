package io.coordis.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link SameJvmLocks}'s comparison as a suite scenario: Coordis and the clients it is compared with, all in this
 * one child JVM, interleaved in short blocks ({@link SameJvmLocks.Blocks}) for the measured window; the child's
 * warm-up runs the same blocks and is discarded. The scenario lists only {@code coordis}: the comparison is
 * inside the run.
 *
 * <p>Figures: {@code ops} and {@code opsPerSec} count every client's cycles (so Redis commands per operation
 * are the clients' mean); {@code sameJvmRatio} is the median over blocks of Coordis's cycles per second ÷ the
 * second client's in the same block, {@code sameJvmCpuRatio} the same for process CPU per cycle; {@code blocks}.
 */
final class SameJvmLoop implements Workload {
    /** Cycles per thread and client in one block: a few tenths of a second on one thread. */
    static final int CYCLES_PER_BLOCK = 500;

    private final List<Locking> clients;
    private final int threads;
    private int nextBlock;

    SameJvmLoop(List<Locking> clients, int threads) {
        if (clients.size() < 2) {
            throw new IllegalArgumentException("a same-JVM comparison needs two clients or more, got " + clients.size());
        }
        this.clients = List.copyOf(clients);
        this.threads = threads;
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        List<double[]> rates = new ArrayList<>();
        List<double[]> cpu = new ArrayList<>();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        try (SameJvmLocks.Blocks blocks = new SameJvmLocks.Blocks(clients, CYCLES_PER_BLOCK, threads)) {
            // whole rotations only, so that every client leads a block equally often
            do {
                for (int i = 0; i < clients.size(); i++) {
                    double[] r = new double[clients.size()];
                    double[] c = new double[clients.size()];
                    blocks.block(nextBlock++, r, c);
                    rates.add(r);
                    cpu.add(c);
                }
            } while (System.nanoTime() < end);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double[] ratio = new double[rates.size()];
        double[] cpuRatio = new double[rates.size()];
        for (int b = 0; b < rates.size(); b++) {
            ratio[b] = rates.get(b)[0] / rates.get(b)[1];
            cpuRatio[b] = cpu.get(b)[0] / cpu.get(b)[1];
        }
        double ops = (double) rates.size() * clients.size() * CYCLES_PER_BLOCK * threads;
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ops", ops);
        out.put("seconds", seconds);
        out.put("opsPerSec", ops / seconds);
        out.put("sameJvmRatio", Summary.of(ratio).median());
        out.put("sameJvmCpuRatio", Summary.of(cpuRatio).median());
        out.put("blocks", (double) rates.size());
        return out;
    }

    @Override
    public void close() {
        clients.forEach(Locking::close);
    }
}
