package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Signal;
import io.coordis.signal.Signals;
import io.coordis.signal.Waiter;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Resources: many cycles of every primitive leave the client's connections (counted by Redis, CLIENT LIST)
 * and threads (counted by the JVM, grouped by name) exactly where they were after warming up, and a thousand
 * callers waiting on one held lock all return by their deadline + 1 s without the client starting a thread
 * per waiter. A leak of one connection or thread per cycle would show up as thousands here.
 */
class ResourcesIT {
    private static final int CYCLES = 10_000;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void cyclesOfEveryPrimitiveLeaveConnectionsAndThreadsUnchanged() throws Exception {
        try (RespClient watch = RespClient.connect(redis.server().host(), redis.server().port())) {
            int connectionsBefore = connections(watch);
            Map<String, Integer> threadsBefore = threads();
            try (Coordis coordis = Coordis.connect(redis.uri())) {
                Map<String, IntConsumer> primitives = primitives(coordis);
                primitives.values().forEach(p -> repeat(p, 50)); // opens whatever opens lazily
                int connections = connections(watch);
                Map<String, Integer> threads = threads();
                for (Map.Entry<String, IntConsumer> p : primitives.entrySet()) {
                    repeat(p.getValue(), p.getKey().startsWith("new ") ? CYCLES / 20 : CYCLES);
                    await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        assertThat(connections(watch)).as("connections after cycles of " + p.getKey())
                                .isEqualTo(connections);
                        assertThat(threads()).as("threads after cycles of " + p.getKey()).isEqualTo(threads);
                    });
                }
            }
            await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(connections(watch)).as("connections once the client is closed").isEqualTo(connectionsBefore);
                assertThat(threads()).as("threads once the client is closed").isEqualTo(threadsBefore);
            });
        }
    }

    /** One cycle of each primitive, by name; names starting with "new " also create and close the object. */
    private static Map<String, IntConsumer> primitives(Coordis coordis) throws InterruptedException {
        Map<String, IntConsumer> p = new java.util.LinkedHashMap<>();
        DistributedLock lock = coordis.lock("res:lock");
        p.put("lock acquire/release", i -> {
            try (Lease lease = lock.tryAcquire().orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        });
        p.put("new lock, waited acquire/release", i -> {
            try (Lease lease = coordis.lock("res:lock:" + (i % 100)).acquire(Duration.ofSeconds(1)).orElseThrow()) {
                assertThat(lease.fencingToken()).isPositive();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Signals signals = coordis.signals();
        p.put("new waiter, signal, await", i -> {
            try (Waiter waiter = signals.waiter("res:signal")) {
                assertThat(signals.signal("res:signal", "s" + i)).isGreaterThanOrEqualTo(1);
                Optional<Signal> s = waiter.await(Duration.ofSeconds(2));
                assertThat(s).as("signal %d", i).isPresent();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        p.put("timed-out await", i -> {
            if (i % 50 == 0) {
                try {
                    assertThat(signals.await("res:silent", Duration.ofMillis(1))).isEmpty();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
        });
        LeaderElection election = coordis.election("res:election");
        p.put("campaign/resign", i -> {
            try {
                Leadership l = election.campaign(Duration.ofSeconds(2)).orElseThrow();
                assertThat(l.term()).isPositive();
                assertThat(election.resign()).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        p.put("new election, campaign/close", i -> {
            try (LeaderElection e = coordis.election("res:election:" + (i % 100))) {
                assertThat(e.campaign(Duration.ofSeconds(2))).isPresent();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        ReliableQueue queue = coordis.reliableQueue("res:queue");
        Consumer consumer = queue.consumer();
        p.put("push/take/ack", i -> {
            try {
                queue.push("m" + i);
                Delivery d = consumer.take(Duration.ofSeconds(2)).orElseThrow();
                assertThat(d.text()).isEqualTo("m" + i);
                assertThat(consumer.ack(List.of(d))).hasSize(1);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        p.put("new consumer, take/ack/close", i -> {
            try {
                queue.push("n" + i);
                Consumer c = queue.consumer();
                try {
                    Delivery d = c.take(Duration.ofSeconds(2)).orElseThrow();
                    c.ack(List.of(d));
                } finally {
                    c.close();
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        return p;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aThousandTimedWaitsOnOneHeldLockAllReturnByTheirDeadlineWithoutAThreadPerWaiter() throws Exception {
        Duration wait = Duration.ofSeconds(3);
        int waiters = 1_000;
        try (Coordis coordis = Coordis.connect(redis.uri()); Coordis holder = Coordis.connect(redis.uri())) {
            Lease held = holder.lock("res:busy").tryAcquire().orElseThrow();
            DistributedLock lock = coordis.lock("res:busy");
            // the client's own machinery (the pub/sub connection a waiter listens on) is up before counting
            assertThat(lock.acquire(Duration.ofMillis(50))).isEmpty();
            Map<String, Integer> before = threads();
            CountDownLatch started = new CountDownLatch(waiters);
            ConcurrentLinkedQueue<Long> lateMillis = new ConcurrentLinkedQueue<>();
            AtomicInteger acquired = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            List<Thread> callers = new ArrayList<>();
            for (int i = 0; i < waiters; i++) {
                Thread t = new Thread(() -> {
                    started.countDown();
                    long start = System.nanoTime();
                    try {
                        lock.acquire(wait).ifPresent(l -> {
                            acquired.incrementAndGet();
                            l.close();
                        });
                    } catch (Exception e) {
                        failed.incrementAndGet();
                    }
                    long late = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - wait.toMillis();
                    if (late > 1000) {
                        lateMillis.add(late);
                    }
                }, "waiter-" + i);
                callers.add(t);
                t.start();
            }
            started.await();
            Thread.sleep(wait.toMillis() / 2);
            Map<String, Integer> during = threads();
            for (Thread t : callers) {
                t.join(wait.toMillis() + 30_000);
            }
            during.keySet().removeIf(name -> name.startsWith("waiter-"));
            assertThat(during).as("the client's threads while 1,000 callers wait").isEqualTo(before);
            held.close();
            assertThat(acquired.get()).as("acquired while another client held the lock").isZero();
            assertThat(failed.get()).as("waits that threw instead of timing out").isZero();
            assertThat(lateMillis).as("ms past deadline + 1 s").isEmpty();
        }
    }

    private static void repeat(IntConsumer cycle, int times) {
        for (int i = 0; i < times; i++) {
            cycle.accept(i);
        }
    }

    /** Client connections Redis sees, not counting the one asking. */
    private static int connections(RespClient watch) {
        String list = (String) watch.command("CLIENT", "LIST");
        return (int) list.lines().filter(l -> !l.isBlank()).count() - 1;
    }

    /**
     * JVM-wide singletons that the JDK, Netty and Coordis start on first use and keep (or stop after being idle
     * on their own schedule): one each per JVM, whatever the number of cycles, so they are not counted. The
     * process reaper threads belong to the JDK's process handling, which the test kit uses for redis-server;
     * coordis-wheel is the coarse timer that lease renewals wait on.
     */
    private static final java.util.Set<String> SINGLETONS = java.util.Set.of("CompletableFutureDelayScheduler",
            "globalEventExecutor-#-#", "ForkJoinPool.commonPool-worker-#", "process reaper",
            "coordis-wheel");

    /** Live threads grouped by name with digits removed (pool threads differ only by number). */
    private static Map<String, Integer> threads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(t -> t.getName().replaceAll("[0-9]+", "#"))
                .filter(name -> !SINGLETONS.contains(name))
                .collect(Collectors.toMap(n -> n, n -> 1, Integer::sum, TreeMap::new));
    }
}
