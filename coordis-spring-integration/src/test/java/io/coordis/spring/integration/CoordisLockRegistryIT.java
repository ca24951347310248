package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.integration.support.locks.DistributedLock;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The registry against a real Redis: the lock contract Spring Integration expects, and what Coordis adds. */
class CoordisLockRegistryIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static Coordis a;
    private static Coordis b;

    @BeforeAll
    static void connect(RedisServer server) {
        a = Clients.connect(server.uri());
        b = Clients.connect(server.uri());
    }

    @AfterAll
    static void close() {
        a.close();
        b.close();
    }

    @Test
    void locksAreThreadOwnedReentrantAndExcludeOtherProcesses(RedisServer server) throws Exception {
        CoordisLockRegistry here = new CoordisLockRegistry(a, "orders");
        CoordisLockRegistry there = new CoordisLockRegistry(b, "orders");
        DistributedLock lock = here.obtain("42");
        assertThat(here.obtain("42")).isSameAs(lock);
        lock.lock();
        lock.lock();
        assertThat(server.command("GET", Prefixed.key("orders:42"))).as("RedisLockRegistry's key")
                .isEqualTo(here.lease("42").orElseThrow().token());
        assertThat(there.obtain("42").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(there.obtain("43").tryLock()).as("another key is another lock").isTrue();
        there.obtain("43").unlock();
        AtomicReference<Throwable> foreign = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                lock.unlock();
            } catch (Throwable t) {
                foreign.set(t);
            }
        });
        other.start();
        other.join();
        assertThat(foreign.get()).isInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThat(there.obtain("42").tryLock()).as("held until the last unlock").isFalse();
        long fence = here.lease("42").orElseThrow().fencingToken();
        lock.unlock();
        assertThat(here.lease("42")).isEmpty();
        DistributedLock theirs = there.obtain("42");
        assertThat(theirs.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5))).isTrue();
        assertThat(there.lease("42").orElseThrow().fencingToken()).isGreaterThan(fence);
        assertThatThrownBy(theirs::newCondition).isInstanceOf(UnsupportedOperationException.class);
        theirs.unlock();
    }

    @Test
    void aTtlOfItsOwnPerAcquisitionAndRenewalByTheHolder(RedisServer server) throws Exception {
        CoordisLockRegistry registry = new CoordisLockRegistry(a, "ttl", LockOptions.defaults()
                .withTtl(Duration.ofSeconds(30)));
        DistributedLock lock = registry.obtain("job");
        lock.lock(Duration.ofSeconds(3));
        assertThat(pttl(server, "ttl:job")).isBetween(1_000L, 3_000L);
        registry.renewLock("job", Duration.ofSeconds(20));
        assertThat(pttl(server, "ttl:job")).isGreaterThan(10_000L);
        CompletableFuture<Throwable> renewedByOther = CompletableFuture.supplyAsync(() -> {
            try {
                registry.renewLock("job");
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertThat(renewedByOther.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not hold it");
        lock.unlock();
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
        assertThat(pttl(server, "ttl:job")).isBetween(1L, 500L);
        lock.unlock();
        assertThatThrownBy(() -> lock.lock(Duration.ofMillis(10))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock ttl");
    }

    @Test
    void unusedLocksExpireFromTheRegistryButHeldOnesStay() {
        CoordisLockRegistry registry = new CoordisLockRegistry(a, "expiry");
        DistributedLock idle = registry.obtain("idle");
        DistributedLock held = registry.obtain("held");
        held.lock();
        registry.expireUnusedOlderThan(-1);
        assertThat(registry.obtain("idle")).isNotSameAs(idle);
        assertThat(registry.obtain("held")).isSameAs(held);
        held.unlock();
        registry.expireUnusedOlderThan(60_000);
        assertThat(registry.obtain("held")).as("used a moment ago").isSameAs(held);
    }

    @Test
    void badKeysAreRefusedWithWhatToWriteInstead() {
        CoordisLockRegistry registry = new CoordisLockRegistry(a, "keys");
        assertThatThrownBy(() -> registry.obtain(42L)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a String, was a java.lang.Long");
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> new CoordisLockRegistry(a, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("registry key must not be blank");
    }

    @Test
    void aLockDeletedUnderItsHolderIsReportedAtOnceAndItsUnlockFails(RedisServer server) throws Exception {
        CoordisLockRegistry registry = new CoordisLockRegistry(a, "stolen",
                LockOptions.defaults().withTtl(Duration.ofMillis(600)));
        CompletableFuture<String> reported = new CompletableFuture<>();
        registry.addLossListener((key, lease) -> reported.complete(key + " " + lease.fencingToken()));
        DistributedLock lock = registry.obtain("invoice");
        lock.lock();
        Lease lease = registry.lease("invoice").orElseThrow();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            long deleted = System.nanoTime();
            server.command("DEL", Prefixed.key("stolen:invoice"));
            assertThat(reported.get(5, TimeUnit.SECONDS)).as("told while still held, before unlock()")
                    .isEqualTo("invoice " + lease.fencingToken());
            assertThat(Duration.ofNanos(System.nanoTime() - deleted)).as("within the lock's TTL")
                    .isLessThan(Duration.ofMillis(600 + 400));
            assertThat(lease.isHeld()).isFalse();
        } finally {
            System.setErr(err);
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("WARN")
                .contains("lock 'invoice' of registry 'stolen' was lost while thread "
                        + Thread.currentThread().getName() + " held it");
        assertThatThrownBy(lock::unlock).isInstanceOf(ConcurrentModificationException.class)
                .hasMessageContaining("lock 'invoice'").hasMessageContaining("was lost while held");
        assertThat(registry.lease("invoice")).as("the thread holds it no longer").isEmpty();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    /** What RedisLockRegistry (Spring Integration 7.0) sends to lock: take the key if absent, or renew our own. */
    private static final String REDIS_LOCK_REGISTRY_OBTAIN = """
            local lockClientId = redis.call('GET', KEYS[1])
            if lockClientId == ARGV[1] then
                redis.call('PEXPIRE', KEYS[1], ARGV[2])
                return true
            elseif not lockClientId then
                redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
                return true
            end
            return false
            """;
    /** What RedisLockRegistry's spin lock sends to unlock: compare and unlink. */
    private static final String REDIS_LOCK_REGISTRY_UNLOCK = """
            local lockClientId = redis.call('GET', KEYS[1])
            if lockClientId == ARGV[1] then
                redis.call('UNLINK', KEYS[1])
                return true
            end
            return false
            """;

    @Test
    void aRedisLockRegistryOnTheSameKeysAndTheCoordisRegistryExcludeEachOther(RedisServer server) throws Exception {
        CoordisLockRegistry registry = new CoordisLockRegistry(a, "migrating");
        DistributedLock lock = registry.obtain("7");
        String key = Prefixed.key("migrating:7");
        String oldClient = "6f1c7e0a-old-instance";
        assertThat(server.command("EVAL", REDIS_LOCK_REGISTRY_OBTAIN, "1", key, oldClient, "60000"))
                .as("the old registry locks").isEqualTo(1L);
        assertThat(lock.tryLock()).as("Coordis stays out while the old registry holds").isFalse();
        assertThat(server.command("EVAL", REDIS_LOCK_REGISTRY_UNLOCK, "1", key, oldClient)).isEqualTo(1L);
        assertThat(lock.tryLock(Duration.ofSeconds(2), Duration.ofSeconds(30))).isTrue();
        assertThat(server.command("EVAL", REDIS_LOCK_REGISTRY_OBTAIN, "1", key, oldClient, "60000"))
                .as("the old registry stays out while Coordis holds").isNull();
        lock.unlock();
        assertThat(server.command("EVAL", REDIS_LOCK_REGISTRY_OBTAIN, "1", key, oldClient, "60000")).isEqualTo(1L);
    }

    private static long pttl(RedisServer server, String name) {
        return (Long) server.command("PTTL", Prefixed.key(name));
    }
}
