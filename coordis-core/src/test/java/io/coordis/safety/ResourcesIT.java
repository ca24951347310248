package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
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
 * per waiter. A leak of one connection or thread per cycle would show up as hundreds or thousands here.
 */
class ResourcesIT {
    /** Cycles of a primitive that uses objects it keeps; those that make and close objects run fewer. */
    private static final int CYCLES = 10_000;
    /** Cycles that make (and close) an object, subscribe, or go to three nodes: each costs several round trips. */
    private static final int FEWER = CYCLES / 20;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void cyclesOfEveryPrimitiveLeaveConnectionsAndThreadsUnchanged() throws Exception {
        try (io.coordis.testkit.RedisGroup masters = io.coordis.testkit.RedisGroup.masters(3);
             Watch watch = new Watch(redis.server(), masters.servers())) {
            int connectionsBefore = watch.connections();
            Map<String, Integer> threadsBefore = threads();
            try (Coordis coordis = TestClients.connect(redis.uri());
                 Coordis redlock = TestClients.connect(masters.uris());
                 Coordis holder = TestClients.connect(masters.uris())) {
                Map<String, Cycles> primitives = primitives(coordis);
                primitives.putAll(redlockPrimitives(redlock, holder));
                primitives.values().forEach(p -> repeat(p.cycle(), 50)); // opens whatever opens lazily
                int connections = watch.connections();
                Map<String, Integer> threads = threads();
                for (Map.Entry<String, Cycles> p : primitives.entrySet()) {
                    repeat(p.getValue().cycle(), p.getValue().times());
                    await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                        assertThat(watch.connections()).as("connections after %d cycles of %s", p.getValue().times(),
                                p.getKey()).isEqualTo(connections);
                        assertThat(threads()).as("threads after cycles of " + p.getKey()).isEqualTo(threads);
                    });
                }
            }
            await().pollInSameThread().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(watch.connections()).as("connections once the clients are closed").isEqualTo(connectionsBefore);
                assertThat(threads()).as("threads once the clients are closed").isEqualTo(threadsBefore);
            });
        }
    }

    /** How many times to run a cycle. */
    private record Cycles(int times, IntConsumer cycle) {
    }

    /** One connection per server, to count the others (CLIENT LIST) on all of them. */
    private static final class Watch implements AutoCloseable {
        private final List<RespClient> clients = new ArrayList<>();

        Watch(io.coordis.testkit.RedisServer first, List<io.coordis.testkit.RedisServer> more) {
            clients.add(first.client());
            for (io.coordis.testkit.RedisServer s : more) {
                clients.add(s.client());
            }
        }

        int connections() {
            return clients.stream().mapToInt(ResourcesIT::connections).sum();
        }

        @Override
        public void close() {
            clients.forEach(RespClient::close);
        }
    }

    /**
     * Redlock over three masters, 1,000 and 500 cycles: every step goes to all three nodes. A waited acquire of a
     * lock that another client holds goes through voting, releasing the minority's votes and retry pacing.
     */
    private static Map<String, Cycles> redlockPrimitives(Coordis redlock, Coordis holder) {
        Map<String, Cycles> p = new java.util.LinkedHashMap<>();
        // a generous node timeout: this counts connections and threads, and a loaded machine must not turn a
        // healthy node's late answer into a refused acquire
        io.coordis.lock.LockOptions options = io.coordis.lock.LockOptions.defaults().withRestartGuard(false)
                .withRetryDelay(Duration.ofMillis(2)).withNodeTimeout(Duration.ofSeconds(1));
        DistributedLock lock = redlock.lock("res:redlock", options);
        p.put("Redlock acquire/release", new Cycles(CYCLES / 10, i -> {
            try (Lease lease = lock.tryAcquire().orElseThrow()) {
                assertThat(lease.votes()).hasSize(3);
            }
        }));
        // held by another client, renewed every third of a second until it closes: once renewed, the holder's
        // timer thread (started on first use) has started, and the count of threads is steady
        Lease held = holder.lock("res:redlock:busy", options.withTtl(Duration.ofSeconds(1))).tryAcquire().orElseThrow();
        await().pollDelay(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(5)).until(held::isHeld);
        p.put("new Redlock, waited acquire of a held lock", new Cycles(FEWER, i -> {
            try {
                assertThat(redlock.lock("res:redlock:busy", options).acquire(Duration.ofMillis(5))).isEmpty();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }));
        return p;
    }

    /** One cycle of each primitive on one Redis, with how many times to run it. */
    private static Map<String, Cycles> primitives(Coordis coordis) throws InterruptedException {
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
        DistributedLock legacy = coordis.legacyLock("res:legacy", io.coordis.lock.LockOptions.defaults());
        p.put("legacy lock acquire/release", i -> {
            try (Lease lease = legacy.tryAcquire().orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        });
        p.put("new legacy lock, waited acquire/release", i -> {
            try (Lease lease = coordis.legacyLock("res:legacy:" + (i % 100), io.coordis.lock.LockOptions.defaults())
                    .acquire(Duration.ofSeconds(1)).orElseThrow()) {
                assertThat(lease.fencingToken()).isPositive();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        io.coordis.queue.Queue plain = coordis.queue("res:plain");
        p.put("plain push/pop, push/blocking pop", i -> {
            try {
                plain.push("p" + i);
                assertThat(plain.pop()).map(String::new).contains("p" + i);
                plain.push("b" + i);
                assertThat(plain.pop(Duration.ofSeconds(2))).map(String::new).contains("b" + i);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        // The term outlasts the whole test: the warm-up's rounds and the measured ones are separated by every other
        // primitive's cycles, and a leader whose last round is a term old rightly steps down instead of leading on.
        io.coordis.election.CounterElection counter = coordis.counterElection("res:counter", Duration.ofMinutes(10));
        p.put("counter election round", i -> {
            try {
                assertThat(counter.round()).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        p.put("new latched event, signal, await, clear", i -> {
            io.coordis.signal.Event event = signals.event("res:event:" + (i % 100), Duration.ofSeconds(5));
            try {
                event.signal("e" + i);
                assertThat(event.await(Duration.ofSeconds(2))).map(Signal::data).contains("e" + i);
                assertThat(event.clear()).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        p.put("new listener, signal, heard, close", i -> {
            CountDownLatch heard = new CountDownLatch(1);
            try (io.coordis.signal.Subscription listening = signals.listen(List.of("res:listen"), s -> {
                if (s.data().equals("l" + i)) {
                    heard.countDown();
                }
            })) {
                signals.signal("res:listen", "l" + i);
                assertThat(heard.await(2, TimeUnit.SECONDS)).as("listener heard signal %d", i).isTrue();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        p.put("new gathering of two channels, signals, await", i -> {
            try (io.coordis.signal.Gathering gathering = signals.gathering(List.of("res:g1", "res:g2"))) {
                signals.signal("res:g1", "a" + i);
                signals.signal("res:g2", "b" + i);
                assertThat(gathering.await(Duration.ofSeconds(2))).as("gathering %d", i).isPresent();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        LeaderElection observed = coordis.election("res:observed");
        p.put("new observer of an election, a change seen, close", i -> {
            java.util.concurrent.BlockingQueue<io.coordis.election.LeaderEvent> events =
                    new java.util.concurrent.LinkedBlockingQueue<>();
            try (AutoCloseable observer = observed.observe(events::add)) {
                Leadership l = observed.campaign(Duration.ofSeconds(2)).orElseThrow();
                io.coordis.election.LeaderEvent seen;
                do {
                    seen = events.poll(2, TimeUnit.SECONDS);
                    assertThat(seen).as("observer %d saw the new leader", i).isNotNull();
                } while (seen.leader().map(x -> x.term().orElse(-1) != l.term()).orElse(true));
                assertThat(observed.resign()).isTrue();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Map<String, Cycles> counted = new java.util.LinkedHashMap<>();
        p.forEach((name, cycle) -> counted.put(name, new Cycles(name.startsWith("new ") ? FEWER : CYCLES, cycle)));
        return counted;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aThousandTimedWaitsOnOneHeldLockAllReturnByTheirDeadlineWithoutAThreadPerWaiter() throws Exception {
        Duration wait = Duration.ofSeconds(3);
        int waiters = 1_000;
        try (Coordis coordis = TestClients.connect(redis.uri()); Coordis holder = TestClients.connect(redis.uri())) {
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
     * process reaper threads belong to the JDK's process handling, which the test kit uses for redis-server.
     * Coordis keeps none: a client's threads (coordis-timer-#, coordis-wheel-#, coordis-timeout-#,
     * coordis-callback-#) are its own and end with it, so they are counted.
     */
    private static final java.util.Set<String> SINGLETONS = java.util.Set.of("CompletableFutureDelayScheduler",
            "globalEventExecutor-#-#", "ForkJoinPool.commonPool-worker-#", "process reaper");

    /** Live threads grouped by name with digits removed (pool threads differ only by number). */
    private static Map<String, Integer> threads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(t -> t.getName().replaceAll("[0-9]+", "#"))
                .filter(name -> !SINGLETONS.contains(name))
                .collect(Collectors.toMap(n -> n, n -> 1, Integer::sum, TreeMap::new));
    }
}
