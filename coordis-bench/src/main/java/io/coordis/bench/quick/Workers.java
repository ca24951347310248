package io.coordis.bench.quick;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Threads that move a number of messages together, timed from their start until the last one ends. */
final class Workers {
    private Workers() {
    }

    /** Runs every worker on a thread of its own until all end: {@code messages} per second. */
    static double rate(int messages, List<Callable<Void>> workers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers.size());
        long start = System.nanoTime();
        try {
            List<Future<Void>> running = new ArrayList<>();
            for (Callable<Void> w : workers) {
                running.add(pool.submit(w));
            }
            for (Future<Void> f : running) {
                f.get();
            }
            return messages / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdownNow();
        }
    }
}
