package io.coordis.lock;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Child-JVM main for {@code RedlockMutualExclusionIT}: runs {@code threads} {@link RedlockWorker}s (each
 * with its own client, alternating waiting and trying) and prints {@code READY}, one {@code DONE ...}
 * line per worker, then {@code FINISHED}. Exits when its stdin closes, so it never outlives the test.
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
            List<Future<RedlockWorker.Result>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(new RedlockWorker(a.get("name") + "-t" + i, settings, i % 2 == 0)));
            }
            ContenderProcess.say("READY");
            for (Future<RedlockWorker.Result> f : results) {
                try {
                    ContenderProcess.say(f.get().toLine());
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
