package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.NotReplicatedException;
import io.coordis.Replication;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The failover that replication loses, staged step by step on a real master and replica, judged by the
 * {@link FencedResource}: the replica is promoted while the old master still takes a grant (a partition's
 * failover), then the old master dies. Without a replica wait the grant is lost and a second client gets the lock
 * while the first still holds it (the referee counts the overlap: the negative control; the second number comes from
 * the promoted replica's clock, above the lost counter, so the fence orders the two unless both grants fell in one
 * millisecond); with the wait the first grant never counts, so the referee sees one holder at a time and rising
 * numbers.
 */
class ReplicatedFailoverIT {
    private static final Duration TTL = Duration.ofSeconds(10);

    @Test
    void withoutAReplicaWaitAFailoverHandsOutAFencingNumberTwice() throws Exception {
        FencedResource.Report report = failover(Replication.none());
        assertThat(report.overlaps()).as("the referee catches two holders at once: %s", report.notes())
                .isEqualTo(1);
    }

    @Test
    void withAReplicaWaitTheLostGrantNeverCounted() throws Exception {
        FencedResource.Report report = failover(Replication.toReplicas(1, Duration.ofSeconds(1)));
        assertThat(report.violations()).as("%s", report.notes()).isZero();
        assertThat(report.fenceRegressions()).isZero();
        assertThat(report.overlaps()).isZero();
        assertThat(report.accepted()).isEqualTo(2);
    }

    /**
     * Client a takes the lock once with the replica up, then again on the old master after the replica was promoted;
     * the old master is killed; client b takes the lock on the promoted replica. Each holder enters and writes.
     */
    private static FencedResource.Report failover(Replication replication) throws Exception {
        try (RedisGroup group = RedisGroup.masterWithReplicas(1); FencedResource resource = FencedResource.start()) {
            RedisServer master = group.master();
            RedisServer replica = group.replicas().get(0);
            LockOptions options = LockOptions.defaults().withTtl(TTL).withReplication(replication);
            try (Coordis a = TestClients.connect(master.uri())) {
                DistributedLock lock = a.lock("account", options);
                Lease first = lock.tryAcquire().orElseThrow();
                hold(resource, "a", first);
                awaitReplicated(replica, Prefixed.key("account"), Prefixed.derived("account", "fence"),
                        first.fencingToken());
                // the failover's promotion, as Sentinel makes it while the old master is cut off: the replica stops
                // replicating and takes writes, and the old master goes on taking them too
                replica.command("REPLICAOF", "NO", "ONE");
                Throwable t = catchThrowable(() -> lock.tryAcquire().ifPresent(l -> hold(resource, "a", l, false)));
                if (replication.isNone()) {
                    assertThat(t).as("granted by the old master alone").isNull();
                } else {
                    assertThat(t).isInstanceOf(NotReplicatedException.class);
                }
                master.kill();
                try (Coordis b = TestClients.connect(replica.uri())) {
                    Optional<Lease> taken = b.lock("account", options.withReplication(Replication.none()))
                            .acquire(Duration.ofSeconds(5));
                    assertThat(taken).as("the promoted replica grants the lock").isPresent();
                    hold(resource, "b", taken.get());
                }
            }
            return resource.report();
        }
    }

    /**
     * Blocks until the replica has the first grant's fencing number and its release (the lock key gone): a
     * {@code WAIT} from another connection would not wait for the client's writes.
     */
    private static void awaitReplicated(RedisServer replica, String key, String fence, long number)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(Long.toString(number).equals(replica.command("GET", fence))
                && Long.valueOf(0).equals(replica.command("EXISTS", key)))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the replica did not get the first grant and its release within 10 s");
            }
            Thread.sleep(5);
        }
    }

    private static void hold(FencedResource resource, String client, Lease lease) {
        hold(resource, client, lease, true);
    }

    private static void hold(FencedResource resource, String client, Lease lease, boolean leave) {
        resource.enter(client, lease.fencingToken());
        resource.write(client, lease.fencingToken());
        if (leave) {
            resource.exit(client, lease.fencingToken());
            lease.release();
        }
    }
}
