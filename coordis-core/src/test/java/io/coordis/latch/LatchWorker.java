package io.coordis.latch;

import io.coordis.Coordis;
import io.coordis.TestClients;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child-JVM main for the latch's multi-process test, reporting on stdout:
 * <pre>
 *   URI NAME COUNT WAITERS TIMEOUT_MS   starts WAITERS waits on the latch, prints WAITING n, then once every wait
 *                                       ended OPENED k TIMEDOUT t WOKEN w (w counts every completion seen)
 * </pre>
 * Exits when done, or when stdin closes.
 */
public final class LatchWorker {
    private LatchWorker() {
    }

    public static void main(String[] args) throws Exception {
        Thread watch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // ignore input
                }
            } catch (java.io.IOException ignored) {
                // treat as closed
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watch");
        watch.setDaemon(true);
        watch.start();
        try (Coordis coordis = TestClients.connect(args[0])) {
            CountDownLatch latch = coordis.countDownLatch(args[1], Long.parseLong(args[2]), Duration.ofMinutes(1));
            int waiters = Integer.parseInt(args[3]);
            Duration timeout = Duration.ofMillis(Long.parseLong(args[4]));
            AtomicInteger woken = new AtomicInteger();
            List<CompletableFuture<Boolean>> waits = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                CompletableFuture<Boolean> w = latch.awaitAsync(timeout);
                w.whenComplete((v, f) -> woken.incrementAndGet());
                waits.add(w);
            }
            say("WAITING " + waiters);
            int opened = 0;
            int timedOut = 0;
            for (CompletableFuture<Boolean> w : waits) {
                if (w.join()) {
                    opened++;
                } else {
                    timedOut++;
                }
            }
            Thread.sleep(200); // a second completion of a wait would show in the count meanwhile
            say("OPENED " + opened + " TIMEDOUT " + timedOut + " WOKEN " + woken.get());
        }
        Runtime.getRuntime().halt(0);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
