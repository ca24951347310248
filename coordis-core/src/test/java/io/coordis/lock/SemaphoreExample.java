package io.coordis.lock;

import io.coordis.Coordis;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/** The README's semaphore example, compiled and run by {@code SemaphoreIT}. */
public final class SemaphoreExample {
    private static final Logger log = LoggerFactory.getLogger(SemaphoreExample.class);

    /** What the example's renders write to: it refuses a fencing number lower than one it has seen. */
    public interface Store {
        void write(String job, long fencingToken);
    }

    private SemaphoreExample() {
    }

    public static void render(Coordis coordis, String job, Store store) throws InterruptedException {
        Semaphore renderers = coordis.semaphore("renderers", 4,            // 4 permits, unless Redis has a count
                LockOptions.defaults().withTtl(Duration.ofSeconds(30)));
        Optional<Permit> acquired = renderers.acquire(Duration.ofMinutes(1));  // in arrival order, across processes
        if (acquired.isEmpty()) {
            return;                                                        // no permit within a minute
        }
        try (Permit permit = acquired.get()) {                             // renewed at ttl/3 while open
            permit.lost().thenRun(() -> log.warn("permit lost: stop rendering"));
            store.write(job, permit.fencingToken());                       // the store refuses older fences
        }                                                                  // released: the next in line wakes
    }

    public static List<Long> renderWithoutBlocking(Coordis coordis, List<String> jobs, Store store) {
        Semaphore renderers = coordis.semaphore("renderers", 4);
        List<CompletableFuture<Long>> done = jobs.stream().map(job -> renderers.acquireAsync(Duration.ofMinutes(1))
                .thenApply(acquired -> {                                   // no thread waits meanwhile
                    try (Permit permit = acquired.orElseThrow()) {
                        store.write(job, permit.fencingToken());
                        return permit.fencingToken();
                    }
                })).toList();
        return done.stream().map(CompletableFuture::join).toList();
    }
}
