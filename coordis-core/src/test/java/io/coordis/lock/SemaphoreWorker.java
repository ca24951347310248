package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.fault.FencedClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Child-JVM main for the semaphore's multi-process tests, reporting on stdout.
 * <pre>
 *   loop URI NAME PERMITS REFEREE THREADS MILLIS   threads that take a permit, enter the referee, write with the
 *                                                  permit's fence, leave and release, for MILLIS; then
 *                                                  DONE cycles=C
 *   hold URI NAME PERMITS REFEREE TTL_MS           takes one permit and enters the referee:
 *                                                  ACQUIRED fence=F, then LOST fence=F held=B on loss; on the
 *                                                  stdin line WRITE: WROTE accepted=B
 * </pre>
 * Exits when stdin closes.
 */
public final class SemaphoreWorker {
    private SemaphoreWorker() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[1];
        String name = args[2];
        int permits = Integer.parseInt(args[3]);
        String referee = args[4];
        try (Coordis coordis = TestClients.connect(uri)) {
            if (args[0].equals("loop")) {
                ContenderProcess.exitWhenStdinCloses();
                loop(coordis.semaphore(name, permits), referee, Integer.parseInt(args[5]), Long.parseLong(args[6]));
            } else {
                hold(coordis.semaphore(name, permits,
                        LockOptions.defaults().withTtl(Duration.ofMillis(Long.parseLong(args[5])))), referee);
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private static void loop(Semaphore semaphore, String referee, int threads, long millis) throws Exception {
        AtomicInteger cycles = new AtomicInteger();
        long end = System.nanoTime() + millis * 1_000_000;
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            String client = "jvm" + ProcessHandle.current().pid() + "-" + i;
            Thread t = new Thread(() -> {
                try (FencedClient resource = FencedClient.connect(referee, client)) {
                    while (System.nanoTime() < end) {
                        try (Permit permit = semaphore.acquire(Duration.ofSeconds(10)).orElseThrow()) {
                            resource.enter(permit.fencingToken());
                            resource.write(permit.fencingToken());
                            Thread.sleep(2);
                            resource.exit(permit.fencingToken());
                        }
                        cycles.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            started.add(t);
        }
        for (Thread t : started) {
            t.join();
        }
        ContenderProcess.say("DONE cycles=" + cycles.get());
    }

    private static void hold(Semaphore semaphore, String referee) throws Exception {
        Permit permit = semaphore.acquire(Duration.ofSeconds(10)).orElseThrow();
        long fence = permit.fencingToken();
        FencedClient resource = FencedClient.connect(referee, "held-" + ProcessHandle.current().pid());
        resource.write(fence);
        ContenderProcess.say("ACQUIRED fence=" + fence);
        permit.lost().thenAccept(l -> ContenderProcess.say("LOST fence=" + fence + " held=" + l.isHeld()));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("WRITE")) {
                ContenderProcess.say("WROTE accepted=" + resource.write(fence));
            }
        }
    }
}
