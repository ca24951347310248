package io.coordis.signal;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** 1,000 concurrent waiters cost neither 1,000 threads nor 1,000 connections. */
class ManyWaitersIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final int WAITERS = 1_000;
    private static final int POOL = 8;

    private static int threads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    private static long clients(String type) {
        String list = (String) redis.server().command("CLIENT", "LIST", "TYPE", type);
        return list.lines().filter(l -> !l.isBlank()).count();
    }

    @Test
    void thousandWaitersShareOnePubSubConnectionAndFewThreads() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(POOL);
        List<Waiter> waiters = new ArrayList<>();
        try (Coordis c = TestClients.connect(redis.uri())) {
            Signals signals = c.signals();
            signals.waiter("warm-up").close();
            int threadsBefore = threads();

            for (int i = 0; i < WAITERS; i++) {
                waiters.add(i % 2 == 0 ? signals.waiter("many:" + i) : signals.waiter("many:shared"));
            }
            assertThat(clients("pubsub")).isEqualTo(1);
            assertThat(clients("normal")).isLessThanOrEqualTo(2); // our command connection and this query
            assertThat(((List<?>) redis.server().command("PUBSUB", "CHANNELS", Prefixed.key("many:*"))))
                    .hasSize(WAITERS / 2 + 1);

            // half are awaited by a small pool, the other half through their futures
            List<Future<Optional<Signal>>> awaited = new ArrayList<>();
            List<CompletableFuture<Signal>> futures = new ArrayList<>();
            for (int i = 0; i < WAITERS; i++) {
                Waiter w = waiters.get(i);
                if (i % 4 < 2) {
                    awaited.add(pool.submit(() -> w.await(Duration.ofSeconds(20))));
                } else {
                    futures.add(w.whenSignalled().toCompletableFuture());
                }
            }
            assertThat(threads() - threadsBefore).isLessThanOrEqualTo(POOL + 4);

            for (int i = 0; i < WAITERS; i += 2) {
                signals.signal("many:" + i, "go");
            }
            // Redis counts receiving clients: the 500 waiters on one channel share one connection
            assertThat(signals.signal("many:shared", "go")).isEqualTo(1);

            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            for (Future<Optional<Signal>> f : awaited) {
                assertThat(f.get(20, TimeUnit.SECONDS)).map(Signal::data).contains("go");
            }
            assertThat(threads() - threadsBefore).isLessThanOrEqualTo(POOL + 4);
            assertThat(clients("pubsub")).isEqualTo(1);
        } finally {
            waiters.forEach(Waiter::close);
            pool.shutdownNow();
        }
    }
}
