package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A lock client process for the fair-lock runs, driven line by line on stdin: {@code take LABEL} starts a thread
 * that acquires the lock (waiting up to a minute), prints {@code GOT LABEL fence} and releases it at once;
 * {@code hold LABEL} does the same but keeps the lease until {@code release LABEL}, then prints
 * {@code RELEASED LABEL}. Before each acquire it prints {@code ASKING LABEL}. Prints {@code READY} once connected;
 * exits when stdin closes.
 *
 * <p>Arguments: redis-host:port lock-name fair|plain
 */
public final class FairWaiter {
    private FairWaiter() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, CountDownLatch> held = new ConcurrentHashMap<>();
        try (Coordis coordis = TestClients.builder().urls(java.util.List.of("redis://" + args[0])).connect()) {
            DistributedLock lock = coordis.lock(args[1], LockOptions.defaults().withTtl(Duration.ofSeconds(10))
                    .withFair(args[2].equals("fair")));
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] words = line.split(" ");
                if (words[0].equals("release")) {
                    held.remove(words[1]).countDown();
                    continue;
                }
                CountDownLatch done = new CountDownLatch(words[0].equals("hold") ? 1 : 0);
                held.put(words[1], done);
                Thread t = new Thread(() -> cycle(lock, words[1], done));
                t.start();
            }
        }
    }

    private static void cycle(DistributedLock lock, String label, CountDownLatch done) {
        try {
            System.out.println("ASKING " + label);
            try (Lease lease = lock.acquire(Duration.ofMinutes(1)).orElseThrow()) {
                System.out.println("GOT " + label + " " + lease.fencingToken());
                done.await();
            }
            System.out.println("RELEASED " + label);
        } catch (Exception e) {
            System.out.println("FAILED " + label + " " + e);
        }
    }
}
