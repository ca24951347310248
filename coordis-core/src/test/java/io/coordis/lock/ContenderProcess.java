package io.coordis.lock;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Child-JVM main for {@code MutualExclusionIT} and {@code RedlockMutualExclusionIT}: runs a crew of
 * {@link LockWorker}s against one lock (on one node or several) and prints {@code READY}, one {@code DONE ...}
 * (or {@code FAILED ...}) line per worker as it ends, so a worker that fails early is reported at once, then
 * {@code FINISHED}. Exits when its stdin closes (the test JVM died), so it never outlives the test.
 *
 * <p>Arguments: {@code name=<prefix> threads=<n>} (optionally {@code oneClient=true}: all threads share one client) plus the {@link LockWorker.Settings} as {@code key=value}.
 */
public final class ContenderProcess {
    private ContenderProcess() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            a.put(kv[0], kv[1]);
        }
        exitWhenStdinCloses();
        LockWorker.Settings settings = LockWorker.Settings.fromArgs(a);
        int threads = Integer.parseInt(a.get("threads"));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int status = 0;
        try (LockWorker.Crew crew = new LockWorker.Crew(a.get("name"), threads, settings,
                Boolean.parseBoolean(a.getOrDefault("oneClient", "false")))) {
            CompletionService<LockWorker.Result> done = new ExecutorCompletionService<>(pool);
            for (LockWorker w : crew.workers()) {
                done.submit(w);
            }
            say("READY");
            for (int i = 0; i < threads; i++) {
                try {
                    say(done.take().get().toLine());
                } catch (java.util.concurrent.ExecutionException e) {
                    say("FAILED " + e.getCause());
                    e.getCause().printStackTrace();
                    status = 1;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        say("FINISHED");
        System.exit(status);
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** A daemon that ends this JVM when stdin reaches end of file (the parent is gone or closed it). */
    static void exitWhenStdinCloses() {
        Thread t = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // ignore input
                }
            } catch (java.io.IOException ignored) {
                // treat as closed
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watch");
        t.setDaemon(true);
        t.start();
    }
}
