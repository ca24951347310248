package io.coordis.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Starts several servers or sentinels at once and stops groups of them: the one start and stop path of
 * {@link RedisGroup}, {@link SentinelGroup} and {@link RedisCluster}. Each start runs on a daemon thread of its
 * own; a failure of one start does not hide another's (the later ones are suppressed in the first). Stateless.
 */
final class Processes {
    private Processes() {
    }

    /**
     * Runs {@code start} {@code count} times in parallel and blocks until all have returned. If any fails, those
     * that started are closed and the first failure is thrown.
     *
     * @param count      how many to start
     * @param start      starts one and blocks until it answers
     * @param threadName the name of the starting threads
     * @param close      closes one that started, when another failed
     * @return the started ones, in the order of the starts
     */
    static <T> List<T> startAll(int count, Supplier<T> start, String threadName, Consumer<? super T> close) {
        List<CompletableFuture<T>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(CompletableFuture.supplyAsync(start, task -> {
                Thread t = new Thread(task, threadName);
                t.setDaemon(true);
                t.start();
            }));
        }
        List<T> started = new ArrayList<>();
        RuntimeException failure = null;
        for (CompletableFuture<T> f : futures) {
            try {
                started.add(f.join());
            } catch (CompletionException e) {
                failure = first(failure, e.getCause() instanceof RuntimeException r ? r : e);
            }
        }
        if (failure != null) {
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    close.accept(started.get(i));
                } catch (RuntimeException e) {
                    failure.addSuppressed(e);
                }
            }
            throw failure;
        }
        return started;
    }

    /**
     * Closes {@code servers}, last first (replicas before their master), closing all of them even when some fail.
     *
     * @throws RuntimeException the first failure, with the others suppressed in it
     */
    static void closeAll(List<RedisServer> servers) {
        RuntimeException failure = null;
        for (int i = servers.size() - 1; i >= 0; i--) {
            try {
                servers.get(i).close();
            } catch (RuntimeException e) {
                failure = first(failure, e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** {@code failure}, or {@code next} when there is none yet; a later failure is suppressed in the first. */
    static RuntimeException first(RuntimeException failure, RuntimeException next) {
        if (failure == null) {
            return next;
        }
        failure.addSuppressed(next);
        return failure;
    }
}
