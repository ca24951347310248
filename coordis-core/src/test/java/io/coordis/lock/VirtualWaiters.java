package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Child-JVM main for {@code SemaphoreVirtualThreadsIT} (Java 21+): many virtual threads wait in the blocking
 * {@link Semaphore#acquire()} of a small semaphore on as few carrier threads as the JVM is told to use; prints
 * {@code DONE n} when every one got a permit and gave it back, or {@code STUCK left} after a minute.
 *
 * <p>Arguments: {@code <redis uri> <semaphore name> <threads>}.
 */
public final class VirtualWaiters {
    private VirtualWaiters() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[2]);
        try (Coordis coordis = TestClients.connect(args[0])) {
            Semaphore pool = coordis.semaphore(args[1], 2, LockOptions.defaults().withTtl(Duration.ofSeconds(10)));
            // through reflection: the tests compile for Java 17
            ExecutorService threads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
                    .invoke(null);
            CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                threads.submit(() -> {
                    try (Permit permit = pool.acquire()) {
                        Thread.sleep(1);
                    }
                    done.countDown();
                    return null;
                });
            }
            ContenderProcess.say(done.await(60, TimeUnit.SECONDS) ? "DONE " + n : "STUCK " + done.getCount());
        }
        Runtime.getRuntime().halt(0);
    }
}
