package io.coordis.latch;

import io.coordis.Coordis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The README's count-down latch example, compiled and run by {@code CountDownLatchIT}. */
public final class LatchExample {
    private LatchExample() {
    }

    /** A worker: does its part of the batch, then counts the batch down. */
    public static void finishPart(Coordis coordis, Runnable part) {
        CountDownLatch batch = coordis.countDownLatch("batch:42", 3,   // 3 parts, unless Redis has a count
                Duration.ofHours(1));                                  // gone an hour after the opening
        part.run();
        batch.countDown();                                             // the third call opens it, for everyone
    }

    /** The merger: waits for every part, in whichever process it runs, even if it starts after the last one. */
    public static boolean mergeWhenDone(Coordis coordis, Runnable merge) throws InterruptedException {
        CountDownLatch batch = coordis.countDownLatch("batch:42", 3, Duration.ofHours(1));
        if (!batch.await(Duration.ofMinutes(10))) {                    // pub/sub wakes it, no polling
            return false;                                              // parts missing after ten minutes
        }
        merge.run();
        return true;
    }

    /** The same wait without a thread: the future completes on the client's callback executor. */
    public static CompletableFuture<Boolean> mergeLater(Coordis coordis, Runnable merge) {
        return coordis.countDownLatch("batch:42", 3, Duration.ofHours(1))
                .awaitAsync(Duration.ofMinutes(10))
                .thenApply(open -> {
                    if (open) {
                        merge.run();
                    }
                    return open;
                });
    }
}
