package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.fault.FencedClient;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Threads that run one job name through ShedLock's {@link DefaultLockingTaskExecutor} as fast as they can for a
 * while; each execution enters the {@link FencedResource}, writes with its fencing number and exits. Run in the test
 * JVM and, through {@link #main}, in a child JVM.
 */
final class Hammer {
    static final String NAME = "hammered";
    static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(10);

    private Hammer() {
    }

    /**
     * Runs {@code threads} workers named {@code <id>-t<n>} for {@code runFor} against {@code resource}, each locking
     * through {@code provider} and asking {@code fence} for the running execution's number.
     *
     * @return executions that ran
     */
    static int run(String id, int threads, Duration runFor, String resource, LockProvider provider, LongSupplier fence)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String client = id + "-t" + t;
                runs.add(pool.submit(() -> worker(client, runFor, resource, provider, fence)));
            }
            int total = 0;
            for (Future<Integer> f : runs) {
                total += f.get(runFor.toMillis() + 60_000, TimeUnit.MILLISECONDS);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    private static int worker(String client, Duration runFor, String resource, LockProvider provider, LongSupplier fence)
            throws Exception {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
        int[] ran = {0};
        try (FencedClient referee = FencedClient.connect(resource, client)) {
            referee.awaitStart();
            long end = System.nanoTime() + runFor.toNanos();
            while (System.nanoTime() < end) {
                executor.executeWithLock((Runnable) () -> {
                    long token = fence.getAsLong();
                    referee.enter(token);
                    referee.write(token);
                    referee.exit(token);
                    ran[0]++;
                }, new LockConfiguration(ClockProvider.now(), NAME, LOCK_AT_MOST_FOR, Duration.ZERO));
                Thread.sleep(0, 200_000);
            }
        }
        return ran[0];
    }

    /** Child JVM: {@code <redis url> <resource address> <id> <threads> <run millis>}; prints {@code RAN n}. */
    public static void main(String[] args) throws Exception {
        try (Coordis client = Coordis.builder().keyPrefix(Prefixed.prefix()).url(args[0]).connect()) {
            int ran = run(args[2], Integer.parseInt(args[3]), Duration.ofMillis(Long.parseLong(args[4])), args[1],
                    CoordisLockProvider.of(client), CoordisLockProvider::currentFencingToken);
            System.out.println("RAN " + ran);
        }
        System.exit(0);
    }
}
