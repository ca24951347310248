package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.fault.FencedClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Child-JVM main for {@code LocalHandoffIT}: threads of one client that wait for one lock without a time limit,
 * so that releases hand it on inside the client, each entering the fenced resource with its lease's number,
 * working inside, leaving and releasing, for a fixed time after the resource's GO. Prints {@code READY}, then
 * {@code FINISHED rounds=N lost=N}. Exits when its stdin closes.
 *
 * <p>Arguments: redis URL, lock name, TTL ms, threads, work ms inside, run ms, resource {@code host:port}.
 */
public final class ChainProcess {
    private ChainProcess() {
    }

    public static void main(String[] args) throws Exception {
        ContenderProcess.exitWhenStdinCloses();
        String url = args[0];
        String name = args[1];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[2]));
        int threads = Integer.parseInt(args[3]);
        long workNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        String resource = args[6];
        int[] rounds = new int[threads];
        int[] lost = new int[threads];
        try (Coordis client = TestClients.connect(url)) {
            // no pause for pollers after 100 ms of hand-offs: only the validity rules stop a chain here
            DistributedLock lock = client.lock(name, LockOptions.defaults().withTtl(ttl).withYieldToPollers(false));
            List<Thread> workers = new ArrayList<>();
            List<FencedClient> fenced = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                fenced.add(FencedClient.connect(resource, "p0-t" + t));
            }
            ContenderProcess.say("READY");
            for (int t = 0; t < threads; t++) {
                int i = t;
                Thread w = new Thread(() -> {
                    FencedClient r = fenced.get(i);
                    r.awaitStart();
                    long until = System.nanoTime() + runNanos;
                    try {
                        while (System.nanoTime() - until < 0) {
                            Lease lease = lock.acquire();
                            try {
                                r.enter(lease.fencingToken());
                                LockSupport.parkNanos(workNanos);
                                if (!lease.isHeld()) {
                                    lost[i]++;
                                }
                                r.exit(lease.fencingToken());
                            } finally {
                                lease.release();
                            }
                            rounds[i]++;
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "chain-" + t);
                w.start();
                workers.add(w);
            }
            for (Thread w : workers) {
                w.join();
            }
            fenced.forEach(FencedClient::close);
        }
        int all = 0;
        int allLost = 0;
        for (int t = 0; t < threads; t++) {
            all += rounds[t];
            allLost += lost[t];
        }
        ContenderProcess.say("FINISHED rounds=" + all + " lost=" + allLost);
        System.exit(0);
    }
}
