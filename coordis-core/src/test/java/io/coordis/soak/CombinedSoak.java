package io.coordis.soak;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.fault.NetworkNamespace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every soak workload at once for {@code soak.combined.minutes} (default 60), each judged by its own referee, into
 * one report section with one seed:
 * <ul>
 *   <li>on one Redis ({@code appendfsync always}, in a network namespace when root can make one) under the nemesis of
 *       {@link LockSoak} (kill -9, SIGSTOP, CLIENT PAUSE, partition; latency, blackhole and lost replies on the proxy;
 *       SIGSTOP of the lock, Redlock and election JVMs): the single-node lock ({@link FencedLocks}), the lease
 *       election ({@link LeaseCandidates}) and the counter election ({@link CounterCandidates}) through the proxy;
 *       the reliable queue with consumer kills ({@link QueueWorkload}, pushing until the end, then draining); signals
 *       with killed pub/sub connections ({@link SignalWorkload}, through a proxy of its own);</li>
 *   <li>Redlock over three masters behind proxies ({@link FencedLocks}), a second nemesis faulting one of them
 *       (a minority): kill -9, SIGSTOP, CLIENT PAUSE, latency, blackhole, lost replies;</li>
 *   <li>Sentinel failovers and Redis Cluster failovers ({@link Failovers}: the manual one and kill -9 in turn),
 *       each with a lock, a queue and signals working through them ({@link ReplicatedWorkload}).</li>
 * </ul>
 * Fails on any check of any workload: a fenced violation of the single-node lock, Redlock or the lease election, two
 * counter-election leaders acting at once, an election history with two leaders in a term, a message lost, stuck
 * or invented on the single node, a signal silently missed or heard twice, a workload that did not resume after
 * its last fault, a failover the lock, queue and signals did not come back from within 60 s. On Sentinel and Cluster
 * it counts, without failing, what a failover may lose (replication is asynchronous).
 */
class CombinedSoak {
    @TempDir
    Path dir;

    @Test
    void everyWorkloadAtOnceUnderTheNemesis() throws Exception {
        Duration duration = SoakSettings.combinedDuration();
        long seed = SoakSettings.seed("CombinedSoak");
        String noNamespace = NetworkNamespace.unavailableReason();
        List<AutoCloseable> redlock = new ArrayList<>();
        try (NetworkNamespace ns = noNamespace == null ? NetworkNamespace.create() : null;
             RedisServer redis = LockSoak.server(ns);
             FaultProxy proxy = FaultProxy.to(redis);
             FaultProxy signalProxy = FaultProxy.to(redis)) {
            List<RedisServer> masters = new ArrayList<>();
            List<FaultProxy> proxies = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RedisServer m = RedisServer.builder().appendOnly(true).appendFsync("always").start();
                redlock.add(m);
                masters.add(m);
                FaultProxy p = FaultProxy.to(m);
                redlock.add(p);
                proxies.add(p);
            }
            String redlockAddresses = proxies.stream().map(FaultProxy::address).collect(Collectors.joining(","));
            Harness harness = new Harness("CombinedSoak", "every workload at once under the nemesis", seed)
                    .add(new FencedLocks("lock", proxy.address(), "soak:lock", dir.resolve("lock"), true))
                    .add(new LeaseCandidates(proxy.address(), "soak:election", dir.resolve("election"), seed))
                    .add(new CounterCandidates(proxy.address(), "soak:counter"))
                    .add(new QueueWorkload(redis, dir.resolve("queue"), SoakSettings.combinedMessages(), false, false))
                    .add(new SignalWorkload(redis, signalProxy, dir.resolve("signals")))
                    .add(new FencedLocks("redlock", redlockAddresses, "soak:redlock", dir.resolve("redlock"), true))
                    .add(new Failovers("sentinel", Failovers.sentinel(), dir.resolve("sentinel"), 0, false))
                    .add(new Failovers("cluster", Failovers.cluster(), dir.resolve("cluster"), 0, false))
                    .nemesis(pids -> LockSoak.singleNode(seed, redis, proxy, ns, pids))
                    .nemesis(pids -> Nemesis.builder(seed + 100).servers(masters.subList(0, 1)).proxies(proxies.subList(0, 1))
                            .kinds(EnumSet.of(Nemesis.Kind.KILL_RESTART, Nemesis.Kind.PAUSE, Nemesis.Kind.CLIENT_PAUSE,
                                    Nemesis.Kind.LATENCY, Nemesis.Kind.BLACKHOLE, Nemesis.Kind.LOST_REPLY))
                            .gap(Duration.ofMillis(1500), Duration.ofMillis(2500))
                            .hold(Duration.ofMillis(300), Duration.ofMillis(1200)).restartDelay(Duration.ofMillis(500))
                            .build());
            harness.report().figure("partitions", ns != null ? "yes (the single Redis in a network namespace)"
                            : "left out: " + noNamespace)
                    .figure("Redlock", "3 masters; the second nemesis (seed " + (seed + 100) + ") faults "
                            + masters.get(0).address() + " only");
            harness.run(duration);
        } finally {
            for (int i = redlock.size() - 1; i >= 0; i--) {
                redlock.get(i).close();
            }
        }
    }
}
