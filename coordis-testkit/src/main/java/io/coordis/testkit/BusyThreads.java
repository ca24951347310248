package io.coordis.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Threads that keep the CPU busy while a test runs, so that a race that a loaded machine (a CI runner) shows
 * shows here too: the test's own threads are preempted between steps that an idle machine runs back to back.
 * Close to stop them.
 */
public final class BusyThreads implements AutoCloseable {
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private volatile long sink;

    private BusyThreads(int count) {
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(this::spin, "busy-" + i);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
    }

    /**
     * {@code count} threads spinning until closed.
     *
     * @param count how many threads to start
     * @return the running threads; close to stop them
     */
    public static BusyThreads start(int count) {
        return new BusyThreads(count);
    }

    private void spin() {
        long x = 0;
        while (running.get()) {
            x += System.nanoTime() & 7;
        }
        sink = x;
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join();
        }
    }
}
