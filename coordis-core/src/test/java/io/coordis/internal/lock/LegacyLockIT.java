package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The legacy lock: the {@link LockContract}, and sharing its key with programs of the SETNX pattern. */
class LegacyLockIT extends LockContract {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Override
    protected List<String> urls() {
        return List.of(redis.uri());
    }

    @Override
    protected List<RedisServer> servers() {
        return List.of(redis.server());
    }

    @Override
    protected DistributedLock lock(Coordis client, String name, LockOptions options) {
        return client.legacyLock(name, options);
    }

    private static RedisServer server() {
        return redis.server();
    }

    private static LockOptions ttl(Duration ttl) {
        return LockOptions.defaults().withTtl(ttl);
    }

    private static long now() {
        return System.currentTimeMillis();
    }

    /** The value at the Redis key of the lock {@code name}. */
    private static String get(String name) {
        return (String) server().command("GET", Prefixed.key(name));
    }

    @Test
    void acquireWritesTheExpiryInUnixMillisecondsAndReleaseDeletesIt() {
        long before = now();
        Lease lease = a.legacyLock("legacy:orders", ttl(Duration.ofSeconds(10))).tryAcquire().orElseThrow();
        long after = now();

        String value = get("legacy:orders");
        assertThat(value).isEqualTo(lease.token()).matches("\\d+");
        // Redis's clock and this JVM's are the same machine clock here
        assertThat(Long.parseLong(value)).isBetween(before + 10_000 - 5, after + 10_001 + 5);
        // the key outlives the stored expiry by one second, so a crashed holder leaves nothing behind
        assertThat((Long) server().command("PTTL", Prefixed.key("legacy:orders"))).isBetween(10_000L, 11_001L);
        assertThat(lease.isHeld()).isTrue();

        assertThat(lease.release()).isTrue();
        assertThat(server().command("EXISTS", Prefixed.key("legacy:orders"))).isEqualTo(0L);
        assertThat(lease.release()).isFalse();
    }

    @Test
    void expiredLegacyValuesAreTakenOverInEitherUnit() {
        server().command("SETNX", Prefixed.key("legacy:ms"), Long.toString(now() - 5_000));
        server().command("SETNX", Prefixed.key("legacy:s"), Long.toString(now() / 1000 - 5));
        server().command("SETNX", Prefixed.key("legacy:fraction"), (now() / 1000 - 5) + ".25");

        for (String key : List.of("legacy:ms", "legacy:s", "legacy:fraction")) {
            String old = get(key);
            try (Lease lease = a.legacyLock(key, LockOptions.defaults()).tryAcquire().orElseThrow()) {
                assertThat(get(key)).isEqualTo(lease.token()).isNotEqualTo(old);
                assertThat(Long.parseLong(lease.token())).isGreaterThan(now());
            }
        }
    }

    @Test
    void unexpiredValuesInEitherUnitAreRespected() throws Exception {
        server().command("SETNX", Prefixed.key("legacy:ms"), Long.toString(now() + 60_000));
        server().command("SETNX", Prefixed.key("legacy:s"), Long.toString(now() / 1000 + 60));
        // a seconds value counts until the end of its second, as clients comparing whole seconds see it
        server().command("SETNX", Prefixed.key("legacy:this-second"), Long.toString(now() / 1000 + 1));

        for (String key : List.of("legacy:ms", "legacy:s", "legacy:this-second")) {
            DistributedLock lock = a.legacyLock(key, LockOptions.defaults());
            assertThat(lock.tryAcquire()).as(key).isEmpty();
            assertThat(lock.holder()).as(key).hasValueSatisfying(h -> {
                assertThat(h.token()).isEqualTo(get(key));
                assertThat(h.isCoordis()).isFalse();
                assertThat(h.ttl()).isPresent();
            });
        }
        assertThat(a.legacyLock("legacy:s", LockOptions.defaults()).holder().orElseThrow().ttl().orElseThrow())
                .isBetween(Duration.ofSeconds(58), Duration.ofSeconds(61));
        assertThat(a.legacyLock("legacy:ms", LockOptions.defaults()).acquire(Duration.ofMillis(300))).isEmpty();
    }

    @Test
    void aValueThatIsNoExpiryIsNeverTakenOverButItsKeyExpiryIsWaitedFor() throws Exception {
        server().command("SET", Prefixed.key("legacy:token"), "0123abcd");
        DistributedLock lock = a.legacyLock("legacy:token", LockOptions.defaults());
        assertThat(lock.tryAcquire()).isEmpty();
        assertThat(lock.holder().orElseThrow().ttl()).isEmpty();

        server().command("SET", Prefixed.key("legacy:token"), "0123abcd", "PX", "400");
        long start = System.nanoTime();
        try (Lease lease = lock.acquire(Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300), Duration.ofSeconds(3));
            assertThat(get("legacy:token")).isEqualTo(lease.token());
        }
    }

    @Test
    void exactlyOneOfManyClientsRacingForAnExpiredLockWins() throws Exception {
        int coordisClients = 5;
        int rawClients = 3;
        List<Coordis> clients = new ArrayList<>();
        List<RawLegacyClient> raws = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(coordisClients + rawClients);
        try {
            for (int i = 0; i < coordisClients; i++) {
                clients.add(TestClients.connect(redis.uri()));
            }
            for (int i = 0; i < rawClients; i++) {
                raws.add(new RawLegacyClient(server(), "legacy:race"));
            }
            for (int round = 0; round < 20; round++) {
                server().command("SET", Prefixed.key("legacy:race"), Long.toString(now() - 1_000));
                CyclicBarrier start = new CyclicBarrier(coordisClients + rawClients);
                List<Future<Optional<Lease>>> coordisTries = new ArrayList<>();
                List<Future<Boolean>> rawTries = new ArrayList<>();
                for (Coordis c : clients) {
                    coordisTries.add(pool.submit(() -> {
                        start.await();
                        return c.legacyLock("legacy:race", LockOptions.defaults()).tryAcquire();
                    }));
                }
                for (RawLegacyClient raw : raws) {
                    rawTries.add(pool.submit(() -> {
                        start.await();
                        return raw.tryLock(30_000);
                    }));
                }
                // collect every answer before releasing, so that no one wins after a release
                List<Lease> leases = new ArrayList<>();
                for (Future<Optional<Lease>> f : coordisTries) {
                    f.get(10, TimeUnit.SECONDS).ifPresent(leases::add);
                }
                int winners = leases.size();
                for (Future<Boolean> f : rawTries) {
                    winners += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
                }
                leases.forEach(Lease::close);
                assertThat(winners).as("winners in round %d", round).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
            clients.forEach(Coordis::close);
            raws.forEach(RawLegacyClient::close);
        }
    }

    @Test
    void aRawLegacyClientExcludesCoordisAndViceVersa() throws Exception {
        DistributedLock lock = a.legacyLock("legacy:shared", LockOptions.defaults());
        try (RawLegacyClient raw = new RawLegacyClient(server(), "legacy:shared")) {
            assertThat(raw.tryLock(10_000)).isTrue();
            assertThat(lock.tryAcquire()).isEmpty();
            assertThat(lock.acquire(Duration.ofMillis(300))).isEmpty();
            assertThat(raw.unlock()).isTrue();

            Lease lease = lock.tryAcquire().orElseThrow();
            assertThat(raw.tryLock(10_000)).isFalse();
            assertThat(get("legacy:shared")).isEqualTo(lease.token());
            lease.release();
            assertThat(raw.tryLock(10_000)).isTrue();
        }
    }

    @Test
    void waiterTakesOverOnceTheStoredExpiryOfACrashedLegacyHolderPasses() throws Exception {
        // a legacy holder that crashed: its value expires in 800 ms and its key has no Redis expiry
        server().command("SETNX", Prefixed.key("legacy:crashed"), Long.toString(now() + 800));
        long start = System.nanoTime();
        try (Lease lease = b.legacyLock("legacy:crashed", LockOptions.defaults()).acquire(Duration.ofSeconds(5)).orElseThrow()) {
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(700), Duration.ofSeconds(3));
            assertThat(lease.isHeld()).isTrue();
        }
    }

    @Test
    void releaseDoesNotDeleteALockSomeoneElseHoldsNow() throws Exception {
        Lease lease = a.legacyLock("legacy:late", ttl(Duration.ofMillis(200)).withAutoRenew(false)).tryAcquire().orElseThrow();
        await().atMost(Duration.ofSeconds(3)).until(() -> Long.parseLong(get("legacy:late")) < now());
        assertThat(lease.isHeld()).isFalse();

        try (RawLegacyClient raw = new RawLegacyClient(server(), "legacy:late")) {
            assertThat(raw.tryLock(10_000)).isTrue();
            assertThat(lease.release()).isFalse();
            assertThat(get("legacy:late")).isEqualTo(Long.toString(raw.mine));
        }
    }

    @Test
    void releaseLeavesItsOwnExpiredValueForOthersToTakeOver() {
        Lease lease = a.legacyLock("legacy:expired", ttl(Duration.ofMillis(200)).withAutoRenew(false)).tryAcquire().orElseThrow();
        await().atMost(Duration.ofSeconds(3)).until(() -> Long.parseLong(get("legacy:expired")) < now());
        assertThat(lease.release()).isFalse();
        assertThat(get("legacy:expired")).isEqualTo(lease.token());
        try (Lease next = b.legacyLock("legacy:expired", LockOptions.defaults()).tryAcquire().orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }

    @Test
    void aLegacyClientLosingTheGetsetRaceCostsTheLeaseButNotSafety() {
        String key = "legacy:getset";
        server().command("SETNX", Prefixed.key(key), Long.toString(now() - 1_000));
        try (RawLegacyClient raw = new RawLegacyClient(server(), key)) {
            // the legacy client saw the expired value ...
            assertThat(Long.parseLong(raw.get())).isLessThan(now());
            // ... Coordis takes it over meanwhile ...
            Lease lease = a.legacyLock(key, LockOptions.defaults()).tryAcquire().orElseThrow();
            // ... and the legacy client's GETSET answers an unexpired value: it backs off, but its value stays
            long theirs = now() + 10_000;
            assertThat(raw.getset(theirs)).isEqualTo(lease.token());
            assertThat(b.legacyLock(key, LockOptions.defaults()).tryAcquire()).isEmpty();

            assertThat(lease.extend(Duration.ofSeconds(30))).isFalse();
            assertThat(lease.isHeld()).isFalse();
            assertThat(lease.lost().toCompletableFuture()).succeedsWithin(Duration.ofSeconds(2));
            assertThat(lease.release()).isFalse();
            assertThat(get(key)).isEqualTo(Long.toString(theirs));
        }
    }

    @Test
    void watchdogMovesTheStoredExpiryForward() throws Exception {
        Lease lease = a.legacyLock("legacy:renewed", ttl(Duration.ofMillis(300))).tryAcquire().orElseThrow();
        long first = Long.parseLong(lease.token());
        Thread.sleep(1_000);
        assertThat(lease.isHeld()).isTrue();
        long stored = Long.parseLong(get("legacy:renewed"));
        assertThat(stored).isGreaterThan(first + 500).isGreaterThanOrEqualTo(now());
        try (RawLegacyClient raw = new RawLegacyClient(server(), "legacy:renewed")) {
            assertThat(raw.tryLock(10_000)).isFalse();
        }
        assertThat(b.legacyLock("legacy:renewed", LockOptions.defaults()).tryAcquire()).isEmpty();
        assertThat(lease.release()).isTrue();
        assertThat(server().command("EXISTS", Prefixed.key("legacy:renewed"))).isEqualTo(0L);
    }

    @Test
    void extendWritesALaterExpiryAndKeyExpiry() {
        try (Lease lease = a.legacyLock("legacy:extend", ttl(Duration.ofSeconds(2)).withAutoRenew(false))
                .tryAcquire().orElseThrow()) {
            long before = now();
            assertThat(lease.extend(Duration.ofSeconds(20))).isTrue();
            assertThat(Long.parseLong(get("legacy:extend"))).isBetween(before + 20_000 - 5, now() + 20_001 + 5);
            assertThat((Long) server().command("PTTL", Prefixed.key("legacy:extend"))).isBetween(20_000L, 21_001L);
            assertThat(lease.remainingValidity()).isGreaterThan(Duration.ofSeconds(15));
        }
        assertThat(server().command("EXISTS", Prefixed.key("legacy:extend"))).isEqualTo(0L);
    }

    @Test
    void holderShowsTheStoredValueAndTimeLeft() {
        DistributedLock lock = a.legacyLock("legacy:who", ttl(Duration.ofSeconds(10)));
        assertThat(lock.holder()).isEmpty();
        try (Lease lease = lock.tryAcquire().orElseThrow()) {
            LockHolder holder = lock.holder().orElseThrow();
            assertThat(holder.key()).isEqualTo(Prefixed.key("legacy:who"));
            assertThat(holder.token()).isEqualTo(lease.token());
            assertThat(holder.ttl().orElseThrow()).isBetween(Duration.ofSeconds(9), Duration.ofMillis(10_001));
        }
        assertThat(lock.holder()).isEmpty();
        server().command("SETNX", Prefixed.key("legacy:who"), Long.toString(now() - 1));
        assertThat(lock.holder()).isEmpty();
    }

    @Test
    void keyOfAnotherTypeIsAWrongTypeError() {
        server().command("LPUSH", Prefixed.key("legacy:list"), "x");
        DistributedLock lock = a.legacyLock("legacy:list", LockOptions.defaults());
        assertThatThrownBy(lock::tryAcquire).isInstanceOfSatisfying(WrongTypeException.class, e -> {
            assertThat(e.key()).isEqualTo(Prefixed.key("legacy:list"));
            assertThat(e.actualType()).isEqualTo("list");
        });
        assertThatThrownBy(() -> lock.acquire(Duration.ofMillis(100))).isInstanceOf(WrongTypeException.class);
        assertThatThrownBy(lock::holder).isInstanceOf(WrongTypeException.class);
        assertThat(server().command("TYPE", Prefixed.key("legacy:list"))).isEqualTo("list");
    }

    @Test
    void contentionAcrossThreadsClientsAndALegacyProgramNeverOverlaps() throws Exception {
        List<Coordis> clients = new ArrayList<>(List.of(a, b));
        clients.add(TestClients.connect(redis.uri()));
        List<Callable<AutoCloseable>> lockers = new ArrayList<>();
        try (RawLegacyClient raw = new RawLegacyClient(server(), "legacy:busy")) {
            for (Coordis c : clients) {
                DistributedLock lock = c.legacyLock("legacy:busy", ttl(Duration.ofSeconds(5)));
                for (int t = 0; t < 2; t++) {
                    lockers.add(() -> lock.acquire(Duration.ofSeconds(60)).orElseThrow());
                }
            }
            lockers.add(() -> {
                while (!raw.tryLock(5_000)) {
                    Thread.sleep(5);
                }
                return raw::unlock;
            });
            FencedResource.Report report = contend(lockers, 8);
            assertThat(report.overlaps()).as(report.toString()).isZero();
            assertThat(report.totalEnters()).isEqualTo(lockers.size() * 8);
        } finally {
            clients.get(2).close();
        }
    }

    @Test
    void theFencedResourceCatchesALockThatDoesNotExclude() throws Exception {
        List<Callable<AutoCloseable>> broken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            broken.add(() -> () -> {
            });
        }
        assertThat(contend(broken, 8).overlaps()).isPositive();
    }

    /**
     * Runs every locker on its own thread, {@code rounds} times each, entering and leaving a fenced resource
     * (numbered in entry order: the raw program has no fencing number) while it holds the lock.
     */
    private static FencedResource.Report contend(List<Callable<AutoCloseable>> lockers, int rounds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(lockers.size());
        CyclicBarrier start = new CyclicBarrier(lockers.size());
        AtomicLong entries = new AtomicLong();
        try (FencedResource resource = FencedResource.start()) {
            List<Future<?>> done = new ArrayList<>();
            for (int l = 0; l < lockers.size(); l++) {
                Callable<AutoCloseable> locker = lockers.get(l);
                String client = "locker-" + l;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        try (AutoCloseable held = locker.call()) {
                            long entry = entries.incrementAndGet();
                            resource.enter(client, entry);
                            Thread.sleep(3);
                            resource.exit(client, entry);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
            return resource.report();
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Another program locking with the SETNX pattern one command at a time, on its own clock, writing
     * Unix milliseconds, on the Redis key of the lock {@code name}. Not thread-safe.
     */
    private static final class RawLegacyClient implements AutoCloseable {
        private final RespClient resp;
        private final String key;
        long mine;

        RawLegacyClient(RedisServer server, String name) {
            this.resp = server.client();
            this.key = Prefixed.key(name);
        }

        boolean tryLock(long timeoutMillis) {
            long now = now();
            long value = now + timeoutMillis + 1;
            if (Long.valueOf(1).equals(resp.command("SETNX", key, Long.toString(value)))) {
                mine = value;
                return true;
            }
            String current = get();
            if (current == null || Long.parseLong(current) >= now) {
                return false;
            }
            String old = getset(value);
            if (old == null || Long.parseLong(old) < now) {
                mine = value;
                return true;
            }
            return false;
        }

        /** Deletes the key only while this client's own expiry has not passed, as the pattern asks. */
        boolean unlock() {
            if (now() < mine) {
                resp.command("DEL", key);
                return true;
            }
            return false;
        }

        String get() {
            return (String) resp.command("GET", key);
        }

        String getset(long value) {
            return (String) resp.command("GETSET", key, Long.toString(value));
        }

        @Override
        public void close() {
            resp.close();
        }
    }
}
