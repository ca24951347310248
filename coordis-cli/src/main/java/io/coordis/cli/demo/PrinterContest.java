package io.coordis.cli.demo;

import io.coordis.Coordis;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.ExitCodes;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The demo's workload: workers, each with its own {@link Coordis} client (so they really compete at
 * Redis), take the lock {@value #LOCK} in turns. Records the fencing tokens in the order the lock was
 * granted and fails if two workers ever held it at once.
 */
final class PrinterContest {
    static final String LOCK = "demo:printer";
    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private final String url;
    private final int workers;
    private final int rounds;
    private final Duration hold;
    private final PrintStream out;
    private final AtomicInteger holders = new AtomicInteger();
    private final List<Long> tokens = new ArrayList<>();

    PrinterContest(String url, int workers, int rounds, Duration hold, PrintStream out) {
        this.url = url;
        this.workers = workers;
        this.rounds = rounds;
        this.hold = hold;
        this.out = out;
    }

    /**
     * Runs all workers to the end; blocks.
     *
     * @return the fencing tokens in the order the lock was granted
     * @throws io.coordis.CoordisException when Redis fails a worker
     * @throws CommandFailure when two workers held the lock at once or a worker waited too long
     */
    List<Long> run() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        CountDownLatch connected = new CountDownLatch(workers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 1; i <= workers; i++) {
                String name = "worker-" + i;
                running.add(pool.submit(() -> {
                    work(name, connected);
                    return null;
                }));
            }
            for (Future<?> f : running) {
                awaitWorker(f);
            }
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
        synchronized (tokens) {
            return List.copyOf(tokens);
        }
    }

    private void work(String name, CountDownLatch connected) throws InterruptedException {
        try (Coordis coordis = Coordis.connect(url)) {
            DistributedLock lock = coordis.lock(LOCK, LockOptions.defaults().withTtl(Duration.ofSeconds(10)));
            connected.countDown();
            connected.await();
            for (int round = 0; round < rounds; round++) {
                Lease lease = lock.acquire(MAX_WAIT).orElseThrow(() -> new CommandFailure(ExitCodes.SOFTWARE,
                        name + " did not get " + LOCK + " within " + MAX_WAIT.toSeconds() + "s"));
                try {
                    use(name, lease);
                } finally {
                    lease.release();
                }
                // Other work between turns, so that the others get their chance at the lock.
                Thread.sleep(ThreadLocalRandom.current().nextLong(hold.toMillis() + 1));
            }
        } finally {
            connected.countDown();
        }
    }

    /** The critical section: lines are printed while holding the lock, so they appear in token order. */
    private void use(String name, Lease lease) throws InterruptedException {
        if (holders.incrementAndGet() != 1) {
            throw new CommandFailure(ExitCodes.SOFTWARE, name + " got " + LOCK + " while another worker held it");
        }
        try {
            synchronized (tokens) {
                tokens.add(lease.fencingToken());
            }
            out.println(name + " acquired " + LOCK + " (fencing token " + lease.fencingToken() + ")");
            Thread.sleep(hold.toMillis());
            out.println(name + " released " + LOCK);
        } finally {
            holders.decrementAndGet();
        }
    }

    private static void awaitWorker(Future<?> f) throws InterruptedException {
        try {
            f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
