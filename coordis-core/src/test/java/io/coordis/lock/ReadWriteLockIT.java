package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.inspect.LockState;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read-write lock against a real Redis: many readers or one writer across JVMs and threads, judged by one
 * referee ({@link FencedResource}, readers entering shared) which also catches a broken reader; writers not
 * starved by a stream of readers; foreign {@code SET NX} clients excluded; killed and paused holders.
 */
class ReadWriteLockIT {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern FENCE = Pattern.compile("fence=(\\d+)");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static Coordis client;

    @BeforeAll
    static void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void readersTogetherOrOneWriterAcrossProcessesAndThreads() throws Exception {
        String name = "rw:shared";
        List<ChildJvm> children = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (FencedResource resource = FencedResource.start()) {
            List<String> workers = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                children.add(ChildJvm.start("rw-" + c, ReadWriteProcess.class,
                        List.of("work", redis.uri(), name, resource.address(), "p" + c, "3", "4000", "80")));
                for (int t = 0; t < 3; t++) {
                    workers.add("p" + c + "-t" + t);
                }
            }
            ReadWriteLock lock = client.readWriteLock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(5)));
            List<Future<ReadWriteProcess.Tally>> local = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                String id = "local-t" + t;
                workers.add(id);
                local.add(pool.submit(() -> ReadWriteProcess.work(lock, resource.address(), id, 4000, 80, false)));
            }
            assertThat(resource.awaitGreetings(workers.size(), START_TIMEOUT)).as("workers ready").isTrue();
            resource.go();
            List<ReadWriteProcess.Tally> tallies = new ArrayList<>();
            for (Future<ReadWriteProcess.Tally> f : local) {
                tallies.add(f.get(60, TimeUnit.SECONDS));
            }
            for (ChildJvm child : children) {
                child.awaitLine("FINISHED", Duration.ofSeconds(60));
                child.lines().stream().filter(l -> l.startsWith("DONE ")).map(ReadWriteProcess.Tally::fromLine)
                        .forEach(tallies::add);
            }
            FencedResource.Report r = resource.report();
            String detail = "report: " + r + "\nworkers: " + tallies;
            System.out.println("read-write lock: " + detail);
            assertThat(tallies).extracting(ReadWriteProcess.Tally::worker).containsExactlyInAnyOrderElementsOf(workers);
            assertThat(r.overlaps()).as("a writer beside anyone; " + detail).isZero();
            assertThat(r.fenceRegressions()).as(detail).isZero();
            assertThat(r.violations()).as(detail).isZero();
            assertThat(r.staleRejections()).as("writers' numbers rise in write order; " + detail).isZero();
            assertThat(r.protocolErrors()).as(detail).isZero();
            assertThat(r.insideNow()).as(detail).isEmpty();
            assertThat(r.maxInside()).as("readers held together; " + detail).isGreaterThan(1);
            assertThat(tallies).allSatisfy(t -> assertThat(t.errors()).as(detail).isZero());
            assertThat(tallies.stream().mapToInt(ReadWriteProcess.Tally::writes).sum()).as(detail).isGreaterThan(20);
            assertThat(tallies.stream().mapToInt(ReadWriteProcess.Tally::reads).sum()).as(detail).isGreaterThan(100);
            assertThat(redis.server().command("EXISTS", Prefixed.key(name), Prefixed.derived(name, "readers")))
                    .as("nothing left behind").isEqualTo(0L);
        } finally {
            pool.shutdownNow();
            children.forEach(ChildJvm::close);
        }
    }

    /** The referee catches readers that ignore the writer: the negative test of the check above. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theRefereeCatchesReadersThatIgnoreAWriter() throws Exception {
        ReadWriteLock lock = client.readWriteLock("rw:broken");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (FencedResource resource = FencedResource.start()) {
            List<Future<ReadWriteProcess.Tally>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String id = "w" + t;
                boolean broken = t >= 2;
                done.add(pool.submit(() -> ReadWriteProcess.work(lock, resource.address(), id, 1500, broken ? 100 : 0,
                        broken)));
            }
            assertThat(resource.awaitGreetings(4, START_TIMEOUT)).isTrue();
            resource.go();
            for (Future<ReadWriteProcess.Tally> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
            assertThat(resource.report().overlaps()).as("readers beside a writer, caught: " + resource.report())
                    .isPositive();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void manyReadersOfOneClientHoldAtOnceAndExcludeWritersAndForeignClients() throws Exception {
        String name = "rw:excluded";
        ReadWriteLock lock = client.readWriteLock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(5)));
        Lease first = lock.readLock().tryAcquire().orElseThrow();
        Lease second = lock.readLock().acquire(Duration.ofSeconds(1)).orElseThrow();
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(redis.server().command("SET", Prefixed.key(name), "foreign", "NX", "PX", "5000"))
                .as("a plain SET NX client is excluded by readers").isNull();
        assertThat(client.lock(name).tryAcquire()).as("a plain lock is the write hold").isEmpty();
        assertThat(lock.writeLock().acquire(Duration.ofMillis(200))).isEmpty();
        LockState state = client.inspector().lock(Prefixed.key(name)).orElseThrow();
        assertThat(state.readers()).extracting(LockHolder::token).containsExactlyInAnyOrder(first.token(), second.token());
        assertThat(state.writerWaiting()).as("the writer that gave up left its mark, lapsing within 2 s").isPresent();
        assertThat(state.flags()).doesNotContain(LockState.Flag.FOREIGN);
        assertThat(lock.readLock().tryAcquire()).as("a new reader waits behind a waiting writer").isEmpty();
        List<LockHolder> readers = lock.readers();
        assertThat(readers).extracting(LockHolder::token).containsExactlyInAnyOrder(first.token(), second.token());
        assertThat(readers).allSatisfy(h -> {
            assertThat(h.holderId()).isPresent();
            assertThat(h.ttl().orElseThrow()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));
        });
        assertThat(readers).extracting(h -> h.fencingToken().getAsLong())
                .containsExactlyInAnyOrder(first.fencingToken(), second.fencingToken());

        assertThat(first.release()).isTrue();
        assertThat(client.lock(name).tryAcquire()).as("one reader still holds").isEmpty();
        assertThat(second.release()).isTrue();
        assertThat(redis.server().command("EXISTS", Prefixed.key(name))).as("the last reader deleted the key")
                .isEqualTo(0L);
        try (Lease write = lock.writeLock().tryAcquire().orElseThrow()) {
            assertThat(write.fencingToken()).isGreaterThan(second.fencingToken());
            assertThat(lock.readLock().tryAcquire()).as("no reader beside a writer").isEmpty();
        }
        assertThat(redis.server().command("SET", Prefixed.key(name), "foreign", "NX", "PX", "5000")).isEqualTo("OK");
        assertThat(lock.readLock().tryAcquire()).as("a foreign holder excludes readers").isEmpty();
        redis.server().command("DEL", Prefixed.key(name));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWriterIsNotStarvedByAStreamOfReaders() throws Exception {
        String name = "rw:stream";
        ReadWriteLock lock = client.readWriteLock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(5)));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(4);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int t = 0; t < 4; t++) {
                pool.submit(() -> {
                    started.countDown();
                    while (!stop.get()) {
                        // overlapping holds of 100 ms: some reader always holds while the stream flows
                        try (Lease lease = lock.readLock().acquire(Duration.ofSeconds(10)).orElseThrow()) {
                            reads.incrementAndGet();
                            Thread.sleep(100);
                        }
                    }
                    return null;
                });
                Thread.sleep(25);
            }
            started.await();
            Thread.sleep(300);
            long begin = System.nanoTime();
            Optional<Lease> write = lock.writeLock().acquire(Duration.ofSeconds(5));
            Duration waited = Duration.ofNanos(System.nanoTime() - begin);
            assertThat(write).as("writer got in while readers streamed").isPresent();
            assertThat(waited).as("the writer waited only for the readers inside when it came")
                    .isLessThan(Duration.ofSeconds(2));
            int readsBefore = reads.get();
            Thread.sleep(100);
            assertThat(reads.get()).as("no reader beside the writer").isEqualTo(readsBefore);
            write.get().release();
            Thread.sleep(500);
            assertThat(reads.get()).as("readers go on after the writer").isGreaterThan(readsBefore);
        } finally {
            stop.set(true);
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aKilledReaderOrWriterFreesTheLockWithinItsTtl() throws Exception {
        Duration ttl = Duration.ofSeconds(2); // renewed every 667 ms by a young JVM on a loaded machine
        ReadWriteLock lock = client.readWriteLock("rw:killed", LockOptions.defaults().withTtl(Duration.ofSeconds(5)));
        try (FencedResource resource = FencedResource.start()) {
            for (String role : List.of("read", "write")) {
                try (ChildJvm holder = ChildJvm.start("holder-" + role, ReadWriteProcess.class,
                        List.of("hold", redis.uri(), "rw:killed", role, Long.toString(ttl.toMillis()),
                                resource.address()))) {
                    long fence = fence(holder.awaitLine("ACQUIRED", START_TIMEOUT));
                    Thread.sleep(ttl.multipliedBy(3).dividedBy(2).toMillis()); // renewed past its first TTL
                    DistributedLock other = role.equals("read") ? lock.writeLock() : lock.readLock();
                    assertThat(other.tryAcquire()).as("still held after 1.5 TTL: " + role + "; " + holder.describe())
                            .isEmpty();
                    holder.close(); // SIGKILL
                    long killed = System.nanoTime();
                    try (Lease lease = other.acquire(ttl.plusSeconds(2)).orElseThrow()) {
                        assertThat(Duration.ofNanos(System.nanoTime() - killed)).as("freed after a killed " + role)
                                .isLessThan(ttl.plusSeconds(1));
                        assertThat(lease.fencingToken()).isGreaterThan(fence);
                    }
                }
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aReaderPausedPastItsTtlLearnsItsLossAndItsStaleFenceIsRefused() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        String name = "rw:paused";
        ReadWriteLock lock = client.readWriteLock(name, LockOptions.defaults().withTtl(Duration.ofSeconds(5)));
        try (FencedResource resource = FencedResource.start();
             ChildJvm reader = ChildJvm.start("paused-reader", ReadWriteProcess.class,
                     List.of("hold", redis.uri(), name, "read", Long.toString(ttl.toMillis()), resource.address()))) {
            long readerFence = fence(reader.awaitLine("ACQUIRED", START_TIMEOUT));
            reader.pause();
            long paused = System.nanoTime();
            Lease write = lock.writeLock().acquire(ttl.plusSeconds(2)).orElseThrow();
            assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThan(ttl.plusSeconds(1));
            assertThat(write.fencingToken()).isGreaterThan(readerFence);
            assertThat(resource.write("writer", write.fencingToken())).isTrue();
            reader.resume();
            assertThat(fence(reader.awaitLine("LOST", Duration.ofSeconds(3)))).isEqualTo(readerFence);
            reader.send("WRITE");
            assertThat(reader.awaitLine("WROTE", Duration.ofSeconds(5))).as("the stale reader's write is refused")
                    .endsWith("stale");
            reader.send("RELEASE");
            assertThat(reader.awaitLine("RELEASED", Duration.ofSeconds(5))).isEqualTo("RELEASED result=false");
            assertThat(write.isHeld()).isTrue();
            assertThat(write.release()).isTrue();
            assertThat(resource.report().staleRejections()).isEqualTo(1);
        }
    }

    /** The README's example, as it is written there. */
    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void readmeExample() throws Exception {
        Coordis coordis = client;
        List<Long> cache = new ArrayList<>();
        ReadWriteLock prices = coordis.readWriteLock("prices");
        try (Lease read = prices.readLock().acquire(Duration.ofSeconds(5)).orElseThrow()) {
            cache.add(read.fencingToken());                      // beside other readers, in any process
        }
        try (Lease write = prices.writeLock().acquire(Duration.ofSeconds(5)).orElseThrow()) {
            cache.add(write.fencingToken());                     // alone: no reader, no other writer
        }
        assertThat(cache.get(1)).isGreaterThan(cache.get(0));
    }

    private static long fence(String line) {
        Matcher m = FENCE.matcher(line);
        assertThat(m.find()).as(line).isTrue();
        return Long.parseLong(m.group(1));
    }
}
