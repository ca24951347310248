package io.coordis.lock;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Child-JVM main for {@code RedlockMutualExclusionIT}: runs {@code threads} {@link RedlockWorker}s (each
 * with its own client, alternating waiting and trying) and prints {@code READY}, one {@code DONE ...}
 * (or {@code FAILED ...}) line per worker as it ends, then {@code FINISHED}. Exits when its stdin closes,
 * so it never outlives the test.
 *
 * <p>Arguments: {@code name=<prefix> threads=<n>} plus the {@link RedlockWorker.Settings} as {@code key=value}.
 */
public final class RedlockContenderProcess {
    private RedlockContenderProcess() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            a.put(kv[0], kv[1]);
        }
        ContenderProcess.exitWhenStdinCloses();
        RedlockWorker.Settings settings = RedlockWorker.Settings.fromArgs(a);
        int threads = Integer.parseInt(a.get("threads"));
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        int status = 0;
        try {
            // results in the order workers end, so a worker that fails early is reported at once
            CompletionService<RedlockWorker.Result> done = new ExecutorCompletionService<>(pool);
            for (int i = 0; i < threads; i++) {
                done.submit(new RedlockWorker(a.get("name") + "-t" + i, settings, i % 2 == 0));
            }
            ContenderProcess.say("READY");
            for (int i = 0; i < threads; i++) {
                try {
                    ContenderProcess.say(done.take().get().toLine());
                } catch (java.util.concurrent.ExecutionException e) {
                    ContenderProcess.say("FAILED " + e.getCause());
                    e.getCause().printStackTrace();
                    status = 1;
                }
            }
        } finally {
            pool.shutdownNow();
        }
        ContenderProcess.say("FINISHED");
        System.exit(status);
    }
}
