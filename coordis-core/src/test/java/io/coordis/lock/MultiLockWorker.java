package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.fault.FencedClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A multi-lock client process for the fenced referee: its threads take a set of names, enter each name's fenced
 * resource with that name's fencing number, write twice, leave every resource, release. Runs until stdin closes, then
 * prints {@code STATS cycles=N errors=N} and exits.
 *
 * <p>Arguments: redis-url name=resource-host:port[,name=host:port...] mode threads client-name. Modes:
 * {@code multi} (the real multi-lock); {@code partial}, the broken variant the referee must catch: each name taken
 * one by one with a try, and the work done with whatever was taken (no all-or-none step); {@code holder}: one
 * multi-lock taken with a TTL of 2 s, {@code HOLDING} printed, then held until the process is killed.
 */
public final class MultiLockWorker {
    private MultiLockWorker() {
    }

    public static void main(String[] args) throws Exception {
        String redis = args[0];
        Map<String, String> resources = new LinkedHashMap<>();
        for (String pair : args[1].split(",")) {
            String[] p = pair.split("=", 2);
            resources.put(p[0], p.length > 1 ? p[1] : "");
        }
        List<String> names = List.copyOf(resources.keySet());
        String mode = args[2];
        int threads = Integer.parseInt(args[3]);
        String name = args[4];
        try (Coordis coordis = TestClients.builder().url(redis).commandTimeout(Duration.ofSeconds(2)).connect()) {
            if (mode.equals("holder")) {
                MultiLease lease = coordis.multiLock(names, LockOptions.defaults().withTtl(Duration.ofSeconds(2)))
                        .acquire(Duration.ofSeconds(10)).orElseThrow();
                System.out.println("HOLDING " + lease.fencingTokens());
                Thread.sleep(Long.MAX_VALUE);
                return;
            }
            MultiLock multi = coordis.multiLock(names);
            AtomicLong cycles = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String client = name + "-" + t;
                Thread w = new Thread(() -> {
                    Map<String, FencedClient> fenced = new LinkedHashMap<>();
                    resources.forEach((n, address) -> fenced.put(n, FencedClient.connect(address, client)));
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            try {
                                Held held = mode.equals("partial") ? partial(coordis, names) : whole(multi);
                                if (held == null) {
                                    continue;
                                }
                                try {
                                    held.tokens.forEach((n, token) -> fenced.get(n).enter(token));
                                    try {
                                        held.tokens.forEach((n, token) -> fenced.get(n).write(token));
                                        Thread.sleep(1);
                                        held.tokens.forEach((n, token) -> fenced.get(n).write(token));
                                    } finally {
                                        held.tokens.forEach((n, token) -> fenced.get(n).exit(token));
                                    }
                                } finally {
                                    held.leases.forEach(Lease::release);
                                }
                                cycles.incrementAndGet();
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                errors.incrementAndGet();
                            }
                        }
                    } finally {
                        fenced.values().forEach(FencedClient::close);
                    }
                }, client);
                w.setDaemon(true);
                workers.add(w);
                w.start();
            }
            System.out.println("READY");
            while (System.in.read() >= 0) {
                // until the test closes stdin
            }
            workers.forEach(Thread::interrupt);
            for (Thread w : workers) {
                w.join(5000);
            }
            System.out.println("STATS cycles=" + cycles + " errors=" + errors);
        }
    }

    /** What one cycle holds: each name's fencing number, and the leases to release. */
    private record Held(Map<String, Long> tokens, List<Lease> leases) {
    }

    private static Held whole(MultiLock multi) throws InterruptedException {
        Optional<MultiLease> got = multi.acquire(Duration.ofSeconds(5));
        return got.map(l -> new Held(l.fencingTokens(), List.<Lease>of(l))).orElse(null);
    }

    /** The broken variant: each name tried on its own, and the work done with whatever was taken. */
    private static Held partial(Coordis coordis, List<String> names) {
        Map<String, Long> tokens = new LinkedHashMap<>();
        List<Lease> leases = new ArrayList<>();
        for (String n : names) {
            coordis.lock(n).tryAcquire().ifPresent(l -> {
                tokens.put(n, l.fencingToken());
                leases.add(l);
            });
        }
        if (leases.isEmpty()) {
            return null;
        }
        // a name it did not get is used anyway, with the number it would have had
        names.forEach(n -> tokens.putIfAbsent(n, tokens.values().iterator().next()));
        return new Held(tokens, leases);
    }
}
