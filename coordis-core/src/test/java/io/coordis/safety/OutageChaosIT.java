package io.coordis.safety;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.SentinelGroup;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 100 waiters in 4 JVMs on 10 lock names, each acquiring once with a long wait, while Redis goes away in the middle:
 * killed with SIGKILL and restarted (AOF, fsync always), a Sentinel failover, a Redis Cluster failover. Every waiter
 * acquires once Redis is back, and the fenced resource of each name sees no holder write with an older fencing
 * number than one before it (0 violations).
 */
class OutageChaosIT {
    private static final int JVMS = 4;
    private static final int WAITERS = 25;
    private static final int NAMES = 10;
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final long HOLD_MS = 100;
    private static final Pattern DONE = Pattern.compile("DONE acquired=(\\d+) timedOut=(\\d+) failed=(\\d+)");

    /** What happens to Redis once the first waiters hold. */
    @FunctionalInterface
    private interface Outage {
        void happen() throws Exception;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyWaiterAcquiresAcrossAKillAndRestart() throws Exception {
        try (RedisServer redis = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
            run("kill -9 and restart", redis.uri(), () -> redis.restart(Duration.ofMillis(1500)));
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyWaiterAcquiresAcrossASentinelFailover() throws Exception {
        try (SentinelGroup group = SentinelGroup.start(1, 3)) {
            RedisServer old = group.master();
            run("Sentinel failover", group.sentinelUri(), () -> {
                group.failover();
                group.awaitFailover(old, SentinelGroup.DISCOVERY_TIMEOUT);
            });
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyWaiterAcquiresAcrossAClusterFailover() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().masters(3).replicasPerMaster(1).start()) {
            RedisServer master = cluster.masterForKey(Prefixed.key("chaos:0"));
            RedisServer replica = cluster.replicasOf(master).get(0);
            run("Cluster failover", cluster.uri(), () -> {
                cluster.failover(replica, false);
                cluster.awaitOk(RedisCluster.SETTLE_TIMEOUT);
            });
        }
    }

    private static void run(String what, String url, Outage outage) throws Exception {
        List<FencedResource> resources = new ArrayList<>();
        List<ChildJvm> jvms = new ArrayList<>();
        try {
            for (int i = 0; i < NAMES; i++) {
                resources.add(FencedResource.start());
            }
            String addresses = String.join(",", resources.stream().map(FencedResource::address).toList());
            for (int j = 0; j < JVMS; j++) {
                jvms.add(ChildJvm.start("waiters-" + j, OutageWaiter.class, List.of(url, Integer.toString(j),
                        Integer.toString(WAITERS), Integer.toString(NAMES), addresses, Long.toString(TTL.toMillis()),
                        Long.toString(WAIT.toMillis()), Long.toString(HOLD_MS))));
            }
            for (ChildJvm c : jvms) {
                assertThat(c.awaitLine("READY", Duration.ofSeconds(60))).as(c.describe()).isNotNull();
            }
            jvms.forEach(c -> c.send("go"));
            // the outage comes once waiters hold and the rest wait in line
            assertThat(jvms.get(0).awaitLine("ACQUIRED", Duration.ofSeconds(30))).as(jvms.get(0).describe()).isNotNull();
            long start = System.nanoTime();
            outage.happen();
            long outageMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            int acquired = 0;
            for (ChildJvm c : jvms) {
                String done = c.awaitLine("DONE", WAIT.plusSeconds(30));
                assertThat(done).as(c.describe()).isNotNull();
                Matcher m = DONE.matcher(done);
                assertThat(m.find()).as(done).isTrue();
                assertThat(c.lines().stream().filter(l -> l.startsWith("FAILED") || l.startsWith("TIMEOUT")).toList())
                        .as("waiters of %s that did not acquire across the %s", c, what).isEmpty();
                acquired += Integer.parseInt(m.group(1));
            }
            long violations = 0;
            long enters = 0;
            for (FencedResource r : resources) {
                FencedResource.Report report = r.report();
                violations += report.violations();
                enters += report.totalEnters();
            }
            System.out.printf("%s (%d ms): %d of %d waiters acquired, %d enters, %d fenced violations%n", what,
                    outageMs, acquired, JVMS * WAITERS, enters, violations);
            assertThat(acquired).as("waiters that acquired across the " + what).isEqualTo(JVMS * WAITERS);
            assertThat(violations).as("fenced violations across the " + what).isZero();
        } finally {
            jvms.forEach(ChildJvm::close);
            resources.forEach(FencedResource::close);
        }
    }
}
