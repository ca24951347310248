package io.coordis;

import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * On Redis Cluster a grant's {@code WAIT} goes to the master of the key's slot, on the connection that wrote the
 * grant: with that master's replica stopped the grant is given back, while a lock on another master's slot is
 * granted and replicated. A {@code WAIT} sent to another node, or on another connection to the right one (which
 * wrote nothing, so any replica has "all" of its writes), would let the first grant count.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterReplicationIT {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.builder().masters(3).replicasPerMaster(1).start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theWaitGoesToTheMasterOfTheKeysSlot() throws Exception {
        Replication one = Replication.toReplicas(1, Duration.ofMillis(200));
        String stopped = "orders";
        RedisServer master = cluster.masterForKey(Prefixed.key(stopped));
        String other = "invoices";
        for (int i = 0; cluster.masterForKey(Prefixed.key(other)).equals(master); i++) {
            other = "invoices-" + i;
        }
        RedisServer replica = cluster.replicasOf(master).get(0);
        try (Coordis c = TestClients.connect(cluster.uri())) {
            DistributedLock lock = c.lock(stopped, LockOptions.defaults().withReplication(one));
            try (Lease lease = lock.tryAcquire().orElseThrow()) {
                assertThat(exists(replica, Prefixed.key(stopped))).isEqualTo(1L);
            }
            replica.pause();
            try {
                NotReplicatedException e = catchThrowableOfType(lock::tryAcquire, NotReplicatedException.class);
                assertThat(e).as("the grant on the stopped replica's master is not replicated").isNotNull();
                assertThat(e.getMessage()).contains("at Redis " + master.address());
                assertThat(master.command("EXISTS", Prefixed.key(stopped))).isEqualTo(0L);
                DistributedLock elsewhere = c.lock(other, LockOptions.defaults().withReplication(one));
                try (Lease lease = elsewhere.tryAcquire().orElseThrow()) {
                    RedisServer otherMaster = cluster.masterForKey(Prefixed.key(other));
                    assertThat(exists(cluster.replicasOf(otherMaster).get(0), Prefixed.key(other))).isEqualTo(1L);
                }
            } finally {
                replica.resume();
            }
        }
    }

    /** {@code EXISTS key} on a replica, which answers for its slots only after {@code READONLY}. */
    private static Object exists(RedisServer replica, String key) {
        return replica.commandsOnOneConnection(new String[] {"READONLY"}, new String[] {"EXISTS", key}).get(1);
    }
}
