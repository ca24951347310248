package io.coordis.soak;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RedisServerBuilder;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.fault.NetworkNamespace;
import io.coordis.testkit.history.LeaderChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The single-node lock and the lease election under {@code soak.minutes} (default 60) of random faults from
 * one seeded nemesis: Redis killed -9 and restarted ({@code appendfsync always}), SIGSTOPped, CLIENT-PAUSEd and
 * partitioned (it runs in a network namespace when root can make one), the proxy in front of it slowed and
 * blackholed, and client JVMs SIGSTOPped (a holder or leader paused past its lease). Two lock JVMs with four
 * threads each write to one fenced resource with their fencing tokens ({@link FencedLocks}); two candidate JVMs
 * write to another with their terms and record their campaigns as histories ({@link LeaseCandidates}).
 *
 * <p>Asserted: 0 fenced violations among lock holders and among leaders (no token or term written by two
 * clients); one leader per term and terms rising in real-time order ({@link LeaderChecker}); the lock and the
 * election made progress after the last fault. Reported: faults by kind, acquisitions, unfenced overlaps per
 * 10,000 acquisitions (expected: paused holders), stale writes refused, acquire latency percentiles, and the
 * time from each healed fault to the next accepted write.
 */
class LockSoak {
    @TempDir
    Path dir;

    @Test
    void lockAndElectionStaySafeUnderRandomFaults() throws Exception {
        Duration duration = SoakSettings.lockDuration();
        long seed = SoakSettings.seed("LockSoak");
        String noNamespace = NetworkNamespace.unavailableReason();
        try (NetworkNamespace ns = noNamespace == null ? NetworkNamespace.create() : null;
             RedisServer redis = server(ns);
             FaultProxy proxy = FaultProxy.to(redis)) {
            Harness harness = new Harness("LockSoak", "single-node lock and lease election under the nemesis", seed)
                    .add(new FencedLocks("lock", proxy.address(), "soak:lock", dir.resolve("lock"), true))
                    .add(new LeaseCandidates(proxy.address(), "soak:election", dir.resolve("election"), seed))
                    .nemesis(pids -> singleNode(seed, redis, proxy, ns, pids));
            harness.report().figure("partitions", ns != null ? "yes (Redis in a network namespace)" : "left out: " + noNamespace)
                    .note("Overlaps are what a resource without fencing would suffer: a holder or leader SIGSTOPped past"
                            + " its lease (STOP_CLIENT) is still inside when the next one enters; the fence refuses its late"
                            + " writes (stale). Recovery is the time from a fault being healed to the next write the"
                            + " resource accepted.");
            harness.run(duration);
        }
    }

    /** The nemesis of a single Redis behind a proxy (and in a namespace when there is one), with client SIGSTOPs. */
    static Nemesis singleNode(long seed, RedisServer redis, FaultProxy proxy, NetworkNamespace ns, Supplier<List<Long>> pids) {
        Set<Nemesis.Kind> kinds = EnumSet.of(Nemesis.Kind.KILL_RESTART, Nemesis.Kind.PAUSE, Nemesis.Kind.CLIENT_PAUSE,
                Nemesis.Kind.LATENCY, Nemesis.Kind.BLACKHOLE, Nemesis.Kind.STOP_CLIENT, Nemesis.Kind.LOST_REPLY);
        if (ns != null) {
            kinds.add(Nemesis.Kind.PARTITION);
        }
        return Nemesis.builder(seed).servers(List.of(redis)).proxies(List.of(proxy))
                .namespaces(ns == null ? List.of() : List.of(ns)).clientPids(pids)
                .kinds(kinds).gap(Duration.ofMillis(1500), Duration.ofMillis(2500))
                .hold(Duration.ofMillis(300), Duration.ofMillis(1200)).restartDelay(Duration.ofMillis(500)).build();
    }

    /** A Redis that loses nothing it acknowledged when killed -9 ({@code appendfsync always}). */
    static RedisServer server(NetworkNamespace ns) {
        RedisServerBuilder b = RedisServer.builder().appendOnly(true).appendFsync("always");
        return (ns != null ? b.namespace(ns) : b).start();
    }
}
