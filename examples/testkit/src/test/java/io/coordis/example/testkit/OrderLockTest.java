package io.coordis.example.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OrderLockTest {
    // A real redis-server on a free port: started before the class's first test, stopped after its last,
    // emptied (FLUSHALL) before each test. As an instance field: a server of its own for each test.
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void oneHolderAtATime() {
        try (Coordis coordis = Coordis.connect(redis.uri())) {
            DistributedLock lock = coordis.lock("orders:42");
            try (Lease lease = lock.tryAcquire().orElseThrow()) {
                assertTrue(lock.tryAcquire().isEmpty());     // busy while held
            }
        }
    }

    @Test
    void everyTestStartsEmpty(RedisServer server) {      // injected: the extension's server
        assertEquals(0L, server.command("DBSIZE"));
        server.command("SET", "left", "over");            // gone before the next test
    }

    @Nested
    class WithSentinel {
        // a master, 1 replica and 1 sentinel, monitored as "mymaster"
        @RegisterExtension
        static final RedisExtension sentinel = RedisExtension.sentinel(1, 1);

        @Test
        void locksOnTheMasterTheSentinelNames() {
            try (Coordis coordis = Coordis.connect(sentinel.sentinelUri());   // redis-sentinel://...#mymaster
                 Lease lease = coordis.lock("orders:42").tryAcquire().orElseThrow()) {
                RedisServer master = sentinel.sentinelGroup().master();
                assertEquals(1L, master.command("EXISTS", "orders:42"));
            }
        }
    }

    @Nested
    class OnACluster {
        // 3 masters sharing the 16384 slots (about 3 s to form); closed after the class
        static RedisCluster cluster;

        @BeforeAll
        static void start() {
            cluster = RedisCluster.builder().masters(3).start();
        }

        @AfterAll
        static void stop() {
            cluster.close();
        }

        @BeforeEach
        void flush() {
            cluster.flushAll();
        }

        @Test
        void locksOnTheMasterOwningTheName() {
            try (Coordis coordis = Coordis.connect(cluster.uri());             // redis-cluster://a,b,c
                 Lease lease = coordis.lock("orders:42").tryAcquire().orElseThrow()) {
                RedisServer owner = cluster.masterForKey("orders:42");
                assertEquals(1L, owner.command("EXISTS", "orders:42"));
            }
        }
    }
}
