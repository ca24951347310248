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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Child-JVM main for {@code ReadWriteLockIT}, in one of two modes.
 *
 * <p>{@code hold <redis uri> <name> <read|write> <ttl ms> <resource address>}: takes one hold and reports on stdout
 * <pre>
 *   ACQUIRED fence=F
 *   LOST fence=F             when lease.lost() completes
 *   WROTE fence=F ok|stale   after the command WRITE on stdin: a write to the fenced resource with its number
 *   RELEASED result=B        after the command RELEASE on stdin
 * </pre>
 * and exits when stdin closes.
 *
 * <p>{@code work <redis uri> <name> <resource address> <process> <threads> <millis> <read percent>}: threads that take
 * read or write holds in turn until the time is up ({@link #work}), then {@code DONE} lines and {@code FINISHED}.
 */
public final class ReadWriteProcess {
    private ReadWriteProcess() {
    }

    /** What one worker did. */
    record Tally(String worker, int reads, int writes, int errors) {
        String toLine() {
            return "DONE " + worker + " " + reads + " " + writes + " " + errors;
        }

        static Tally fromLine(String line) {
            String[] p = line.split(" ");
            return new Tally(p[1], Integer.parseInt(p[2]), Integer.parseInt(p[3]), Integer.parseInt(p[4]));
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("hold")) {
            hold(args[1], args[2], args[3].equals("read"), Duration.ofMillis(Long.parseLong(args[4])), args[5]);
        } else {
            work(args);
        }
        Runtime.getRuntime().halt(0);
    }

    private static void hold(String uri, String name, boolean read, Duration ttl, String resource) throws Exception {
        try (Coordis coordis = TestClients.connect(uri);
             FencedClient fenced = FencedClient.connect(resource, (read ? "reader-" : "writer-") + ProcessHandle.current().pid())) {
            ReadWriteLock lock = coordis.readWriteLock(name, LockOptions.defaults().withTtl(ttl));
            Lease lease = (read ? lock.readLock() : lock.writeLock()).acquire(Duration.ofSeconds(20))
                    .orElseThrow(() -> new IllegalStateException(name + " stayed busy"));
            long fence = lease.fencingToken();
            ContenderProcess.say("ACQUIRED fence=" + fence);
            lease.lost().thenAccept(l -> ContenderProcess.say("LOST fence=" + fence));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("WRITE")) {
                    ContenderProcess.say("WROTE fence=" + fence + " " + (fenced.write(fence) ? "ok" : "stale"));
                } else if (line.equals("RELEASE")) {
                    ContenderProcess.say("RELEASED result=" + lease.release());
                }
            }
        }
    }

    private static void work(String[] args) throws Exception {
        String uri = args[1];
        String name = args[2];
        String resource = args[3];
        String process = args[4];
        int threads = Integer.parseInt(args[5]);
        long millis = Long.parseLong(args[6]);
        int readPercent = Integer.parseInt(args[7]);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (Coordis coordis = TestClients.connect(uri)) {
            ReadWriteLock lock = coordis.readWriteLock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(5)));
            List<Future<Tally>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String id = process + "-t" + t;
                done.add(pool.submit(() -> work(lock, resource, id, millis, readPercent, false)));
            }
            ContenderProcess.say("READY");
            for (Future<Tally> f : done) {
                ContenderProcess.say(f.get().toLine());
            }
            ContenderProcess.say("FINISHED");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Takes read holds ({@code readPercent} of the time) or write holds for {@code millis} after the resource's GO,
     * entering the resource shared or exclusively while holding, and writing to it with a write hold's number. A
     * {@code broken} worker enters as a reader without taking any hold: the referee must catch it beside a writer.
     */
    static Tally work(ReadWriteLock lock, String resource, String id, long millis, int readPercent, boolean broken)
            throws InterruptedException {
        int reads = 0;
        int writes = 0;
        int errors = 0;
        try (FencedClient fenced = FencedClient.connect(resource, id)) {
            fenced.awaitStart();
            long end = System.nanoTime() + millis * 1_000_000;
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() - end < 0) {
                boolean read = random.nextInt(100) < readPercent;
                if (read && broken) {
                    fenced.share(0);
                    TimeUnit.NANOSECONDS.sleep(random.nextInt(500_000));
                    fenced.exit(0);
                    reads++;
                    continue;
                }
                try (Lease lease = (read ? lock.readLock() : lock.writeLock()).acquire(Duration.ofSeconds(10))
                        .orElseThrow(() -> new IllegalStateException("not acquired in 10 s"))) {
                    if (read) {
                        fenced.share(lease.fencingToken());
                        reads++;
                    } else {
                        fenced.enter(lease.fencingToken());
                        fenced.write(lease.fencingToken());
                        writes++;
                    }
                    TimeUnit.NANOSECONDS.sleep(random.nextInt(read ? 2_000_000 : 300_000) + 1);
                    fenced.exit(lease.fencingToken());
                } catch (RuntimeException e) {
                    errors++;
                    System.err.println(id + ": " + e);
                }
            }
        }
        return new Tally(id, reads, writes, errors);
    }
}
