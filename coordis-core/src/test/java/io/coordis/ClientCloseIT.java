package io.coordis;

import io.coordis.election.ElectionOptions;
import io.coordis.election.Leadership;
import io.coordis.queue.Consumer;
import io.coordis.signal.Waiter;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing a client while its callers are blocked in it: every blocking call of every primitive (a signal
 * wait, a waiter, an event wait, a campaign, a reliable take, a plain pop with a wait, a lock acquire) ends
 * within a second or two, however long it was willing to wait, with a {@link CoordisException} that says the
 * client was closed, or with the empty answer of a wait that ended; no thread of the client is left
 * behind. The lock's case is also in {@code SingleNodeLockIT}.
 */
class ClientCloseIT {
    private static final Duration LONG = Duration.ofSeconds(30);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** Live threads of Coordis clients and their Redis connections. */
    private static long clientThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("coordis-") || t.getName().startsWith("lettuce-")).count();
    }

    /** A blocking call; returns a description of how it ended. */
    private interface Blocking {
        Object call() throws Exception;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingTheClientEndsEveryBlockedCallPromptly() throws Exception {
        try (Coordis other = TestClients.connect(redis.uri())) {
            // the election is led and the lock held by another client, for longer than the calls wait
            Leadership leader = other.election("close:elect", ElectionOptions.defaults().withTtl(LONG))
                    .campaign(Duration.ofSeconds(5)).orElseThrow();
            var held = other.lock("close:lock").tryAcquire().orElseThrow();
            // a wait that ends on the other client's timer: its thread has started before the threads are counted
            assertThat(other.lock("close:lock").acquire(Duration.ofMillis(20))).isEmpty();
            long threadsBefore = clientThreads();
            Coordis closing = TestClients.connect(redis.uri());
            Waiter waiter = closing.signals().waiter("close:waiter");
            Consumer consumer = closing.reliableQueue("close:reliable").consumer();
            Map<String, Blocking> calls = new LinkedHashMap<>();
            calls.put("signal await", () -> closing.signals().await("close:signal", LONG));
            calls.put("waiter await", () -> waiter.await(LONG));
            calls.put("gathering await", () -> closing.signals().gathering(List.of("close:g1", "close:g2")).await(LONG));
            calls.put("event await", () -> closing.signals().event("close:event", LONG).await(LONG));
            calls.put("campaign", () -> closing.election("close:elect", ElectionOptions.defaults().withTtl(LONG))
                    .campaign(LONG));
            calls.put("reliable take", () -> consumer.take(LONG));
            calls.put("pop with a wait", () -> closing.queue("close:plain").pop(LONG));
            calls.put("lock acquire", () -> closing.lock("close:lock").acquire(LONG));
            ExecutorService pool = Executors.newCachedThreadPool();
            try {
                java.util.concurrent.atomic.AtomicLong closedAt = new java.util.concurrent.atomic.AtomicLong();
                Map<String, CompletableFuture<String>> ended = new LinkedHashMap<>();
                for (Map.Entry<String, Blocking> c : calls.entrySet()) {
                    ended.put(c.getKey(), CompletableFuture.supplyAsync(() -> {
                        String outcome;
                        try {
                            outcome = "returned " + c.getValue().call();
                        } catch (Throwable t) {
                            outcome = "threw " + t.getClass().getSimpleName() + ": " + t.getMessage();
                        }
                        return outcome + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt.get())
                                + " ms";
                    }, pool));
                }
                Thread.sleep(1500); // every call is blocked by now
                assertThat(ended.values()).as("nothing ended before the close").noneMatch(CompletableFuture::isDone);
                long start = System.nanoTime();
                closedAt.set(start);
                closing.close();
                List<String> outcomes = new ArrayList<>();
                long deadline = start + TimeUnit.SECONDS.toNanos(5);
                for (Map.Entry<String, CompletableFuture<String>> e : ended.entrySet()) {
                    try {
                        outcomes.add(e.getKey() + ": " + e.getValue().get(Math.max(0, deadline - System.nanoTime()),
                                TimeUnit.NANOSECONDS));
                    } catch (java.util.concurrent.TimeoutException stillBlocked) {
                        outcomes.add(e.getKey() + ": still blocked 5 s after the close");
                    }
                }
                System.out.println("after close: " + outcomes);
                long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(tookMs).as("every blocked call ended (ms): %s", outcomes).isLessThan(3000);
                for (String o : outcomes) {
                    assertThat(o).as("ended with an error naming the close, or an empty wait")
                            .matches(".*: (threw [A-Za-z]*Exception: .*closed.*|returned Optional.empty) after \\d+ ms");
                }
                assertThat(outcomes).as("the lock and the campaign cannot end empty: the client is gone")
                        .anySatisfy(o -> assertThat(o).startsWith("lock acquire: threw"))
                        .anySatisfy(o -> assertThat(o).startsWith("campaign: threw"));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(clientThreads()).as("client threads after the close: %s",
                                        Thread.getAllStackTraces().keySet().stream().map(Thread::getName).sorted()
                                                .toList())
                                .isLessThanOrEqualTo(threadsBefore));
            } finally {
                pool.shutdownNow();
                held.release();
                leader.resign();
            }
        }
    }
}
