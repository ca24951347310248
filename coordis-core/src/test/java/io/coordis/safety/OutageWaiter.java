package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.fault.FencedClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A child JVM of {@code OutageChaosIT}: waiters on a few lock names, each acquiring once with a long wait while Redis
 * goes away and comes back. Prints {@code READY}; on a line from stdin every waiter calls {@code acquire(wait)} on its
 * name (waiter {@code i} of JVM {@code j} on name {@code (j * waiters + i) % names}), enters that name's fenced
 * resource with its fencing number, writes, leaves after {@code hold}, releases, and prints {@code ACQUIRED}; then one
 * line {@code DONE acquired=N timedOut=N failed=N}, with {@code FAILED <error>} for each acquire that threw.
 *
 * <p>Arguments: url jvm-index waiters names resource-address,... ttl-ms wait-ms hold-ms
 */
public final class OutageWaiter {
    private OutageWaiter() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int jvm = Integer.parseInt(args[1]);
        int waiters = Integer.parseInt(args[2]);
        int names = Integer.parseInt(args[3]);
        String[] resources = args[4].split(",");
        Duration ttl = Duration.ofMillis(Long.parseLong(args[5]));
        Duration wait = Duration.ofMillis(Long.parseLong(args[6]));
        long hold = Long.parseLong(args[7]);
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger timedOut = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        // four of these start at once on a busy machine: the first connection may take a while, which is an outage too
        try (Coordis coordis = TestClients.builder().url(url).commandTimeout(Duration.ofMillis(500))
                .connect(Duration.ofSeconds(30))) {
            LockOptions options = LockOptions.defaults().withTtl(ttl);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
            say("READY");
            in.readLine();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                int n = (jvm * waiters + i) % names;
                String client = "w" + jvm + "-" + i;
                Thread t = new Thread(() -> {
                    try (FencedClient fenced = FencedClient.connect(resources[n], client)) {
                        Optional<Lease> got = coordis.lock("chaos:" + n, options).acquire(wait);
                        if (got.isEmpty()) {
                            timedOut.incrementAndGet();
                            say("TIMEOUT " + client);
                            return;
                        }
                        Lease lease = got.get();
                        long token = lease.fencingToken();
                        fenced.enter(token);
                        try {
                            fenced.write(token);
                            Thread.sleep(hold);
                            fenced.write(token);
                        } finally {
                            fenced.exit(token);
                        }
                        try {
                            lease.release();
                        } catch (RuntimeException e) {
                            // Redis went away while it held: the lease ends by its TTL
                        }
                        acquired.incrementAndGet();
                        say("ACQUIRED " + client + " chaos:" + n + " " + token);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        say("FAILED " + client + " " + e);
                    }
                }, client);
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) {
                t.join();
            }
        }
        say("DONE acquired=" + acquired + " timedOut=" + timedOut + " failed=" + failed);
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
