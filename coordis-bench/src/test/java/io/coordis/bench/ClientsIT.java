package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The clients the benchmarks compare are correct locks and working pub/sub on real servers, so no side
 * wins by skipping work: a held lock keeps a second caller (on another thread, since Redisson's locks are
 * reentrant per thread) out, and a release frees it in Redis. Coordis's Redlock is tested in coordis-core;
 * here Redisson's and the raw multi-master locks are, on three masters.
 */
class ClientsIT {
    @RegisterExtension
    static final RedisExtension one = RedisExtension.standalone();

    @RegisterExtension
    static final RedisExtension three = RedisExtension.masters(3);

    @ParameterizedTest
    @ValueSource(strings = {"coordis", "redisson-semaphore", "redisson-expirable"})
    void semaphoresAdmitTheirPermitsAndNoMore(String impl) throws Exception {
        String name = "bench:semaphore:" + impl;
        try (Locking semaphore = Scenarios.sharedLocking(impl, one.uri(), CoordisShared.Kind.SEMAPHORE, 2)) {
            Object first = semaphore.tryLock(name);
            Object second = semaphore.tryLock(name);
            assertThat(first).as("first permit").isNotNull();
            assertThat(second).as("second permit").isNotNull();
            assertThat(semaphore.tryLock(name)).as("a third of two permits").isNull();
            semaphore.unlock(first);
            Object third = semaphore.tryLock(name);
            assertThat(third).as("the permit released").isNotNull();
            semaphore.unlock(second);
            semaphore.unlock(third);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"coordis", "redisson"})
    void readHoldsShareAndKeepAWriterOut(String impl) throws Exception {
        String name = "bench:read:" + impl;
        String key = (impl.equals("coordis") ? "coordis-read:" : "redisson-read:") + name;
        try (Locking reads = Scenarios.sharedLocking(impl, one.uri(), CoordisShared.Kind.READ, Integer.MAX_VALUE);
             Coordis writer = Coordis.connect(one.uri())) {
            Object first = reads.tryLock(name);
            Object second = reads.tryLock(name);
            assertThat(first).isNotNull();
            assertThat(second).isNotNull();
            if (impl.equals("coordis")) {
                assertThat(writer.readWriteLock(key).writeLock().tryAcquire()).as("a writer beside readers").isEmpty();
            }
            reads.unlock(first);
            reads.unlock(second);
            if (impl.equals("coordis")) {
                assertThat(writer.readWriteLock(key).writeLock().tryAcquire()).as("a writer once readers left")
                        .hasValueSatisfying(Lease::close);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"coordis", "coordis-no-yield", "redisson", "lettuce", "lettuce-scripts"})
    void singleServerLocksExcludeAndRelease(String impl) throws Exception {
        excludesAndReleases(impl, List.of(one.server()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"redisson-multilock", "redisson-redlock", "lettuce-sequential", "lettuce-parallel"})
    void multiMasterLocksExcludeAndRelease(String impl) throws Exception {
        excludesAndReleases(impl, three.servers());
    }

    @Test
    void rawLocksRespectAForeignHolder() {
        one.server().command("SET", "bench:foreign", "someone-else", "PX", "30000");
        try (Locking raw = Scenarios.locking("lettuce", List.of(one.uri()))) {
            assertThat(raw.tryLock("bench:foreign")).isNull();
        }
        assertThat(one.server().command("GET", "bench:foreign")).isEqualTo("someone-else");
    }

    @Test
    void sameJvmHarnessTakesAndReleasesEveryLockOfEveryBlock() throws Exception {
        List<String> impls = List.of("coordis", "lettuce-scripts", "lettuce");
        List<Locking> clients = impls.stream().map(i -> Scenarios.locking(i, List.of(one.uri()))).toList();
        SameJvmLocks.Measured single;
        SameJvmLocks.Measured four;
        try {
            single = SameJvmLocks.run(clients, 3, 7, 1);
            four = SameJvmLocks.run(clients, 2, 5, 4);
        } finally {
            clients.forEach(Locking::close);
        }
        assertThat(single.rates()).hasDimensions(3, 3);
        assertThat(four.rates()).hasDimensions(2, 3);
        for (SameJvmLocks.Measured m : List.of(single, four)) {
            for (int b = 0; b < m.rates().length; b++) {
                for (int c = 0; c < 3; c++) {
                    assertThat(m.rates()[b][c]).isPositive().isFinite();
                    // process CPU time comes in clock ticks (10 ms): a block this short may read none
                    assertThat(m.cpuUsPerCycle()[b][c]).isNotNegative().isFinite();
                }
            }
        }
        // the fenced clients took fencing numbers at Redis on every thread's key (a counter kept for its retention),
        // and nothing is left held
        for (int c = 0; c < 2; c++) {
            for (int t = 0; t < 4; t++) {
                String counter = "{bench:samejvm:" + c + ":" + t + "}:fence";
                assertThat(Long.parseLong((String) one.server().command("GET", counter))).as(counter).isPositive();
                assertThat((Long) one.server().command("PTTL", counter)).as(counter).isPositive();
            }
        }
        for (int c = 0; c < 3; c++) {
            for (int t = 0; t < 4; t++) {
                assertThat(one.server().command("EXISTS", "bench:samejvm:" + c + ":" + t)).isEqualTo(0L);
            }
        }
    }

    @Test
    void scriptClientSpeaksCoordisLockProtocol() {
        String key = "bench:protocol";
        try (Coordis coordis = Coordis.connect(one.uri());
             Locking scripts = Scenarios.locking("lettuce-scripts", List.of(one.uri()))) {
            DistributedLock lock = coordis.lock(key);
            long firstNumber;
            try (Lease first = lock.tryAcquire().orElseThrow()) {
                assertThat(first.fencingToken()).isPositive();
                firstNumber = first.fencingToken();
                assertThat(scripts.tryLock(key)).as("raw script client while Coordis holds the lock").isNull();
            }
            Object held = scripts.tryLock(key);
            assertThat(held).isNotNull();
            long scriptNumber = Long.parseLong((String) one.server().command("GET", "{" + key + "}:fence"));
            assertThat(scriptNumber).as("fencing counter after the raw script's acquisition").isGreaterThan(firstNumber);
            assertThat(one.server().command("HGET", "{" + key + "}:holder", "token")).as("holder details")
                    .isEqualTo(one.server().command("GET", key));
            assertThat(lock.tryAcquire()).as("Coordis while the raw script client holds the lock").isEmpty();
            scripts.unlock(held);
            assertThat(((Number) one.server().command("EXISTS", key)).intValue()).as("lock key after release").isZero();
            try (Lease next = lock.tryAcquire().orElseThrow()) {
                assertThat(next.fencingToken()).isGreaterThan(scriptNumber);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"coordis", "redisson", "lettuce"})
    void signalsReachTheSubscriber(String impl) throws Exception {
        BlockingQueue<String> inbox = new LinkedBlockingQueue<>();
        try (Signaling signaling = Scenarios.signaling(impl, one.uri())) {
            signaling.subscribe("bench:ch", inbox::add);
            signaling.publish("bench:ch", "hello " + impl);
            assertThat(inbox.poll(10, TimeUnit.SECONDS)).isEqualTo("hello " + impl);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"coordis", "coordis-batch", "redisson", "lettuce"})
    void queueFlowLosesNothingAndLeavesNothingBehind(String impl) throws Exception {
        Queueing queueing = impl.equals("coordis-batch") ? Scenarios.queueing("coordis", one.uri(), Scenarios.QUEUE_BATCH)
                : Scenarios.queueing(impl, one.uri());
        try (QueueFlow flow = new QueueFlow(queueing, "bench:queue", 4, 64)) {
            Map<String, Double> figures = flow.run(Duration.ofMillis(500));
            assertThat(figures.get("ops")).isPositive().isEqualTo(figures.get("pushed"));
            assertThat(figures.get("lost")).isZero();
            assertThat(figures.get("duplicates")).isZero();
        }
        assertThat(one.server().command("KEYS", "bench:queue*")).asList().isEmpty();
        assertThat(one.server().command("KEYS", "{bench:queue}:proc:*")).as("Coordis processing slots").asList().isEmpty();
    }

    private static void excludesAndReleases(String impl, List<RedisServer> servers) throws Exception {
        List<String> uris = servers.stream().map(RedisServer::uri).toList();
        String key = "bench:lock:" + impl;
        try (Locking locking = Scenarios.locking(impl, uris)) {
            Object held = locking.tryLock(key);
            assertThat(held).isNotNull();
            assertThat(presentOn(servers, key)).as("nodes holding the key").isEqualTo(servers.size());
            assertThat(fromAnotherThread(() -> locking.tryLock(key))).as("second holder").isNull();

            locking.unlock(held);
            assertThat(presentOn(servers, key)).as("nodes still holding the key after release").isZero();
            Object again = fromAnotherThread(() -> locking.tryLock(key));
            assertThat(again).as("lock after release").isNotNull();
        }
    }

    private static Object fromAnotherThread(java.util.function.Supplier<Object> call) throws Exception {
        return CompletableFuture.supplyAsync(call).get(Duration.ofSeconds(20).toMillis(), TimeUnit.MILLISECONDS);
    }

    private static int presentOn(List<RedisServer> servers, String key) {
        int n = 0;
        for (RedisServer s : servers) {
            n += ((Number) s.command("EXISTS", key)).intValue();
        }
        return n;
    }
}
