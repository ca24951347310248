package io.coordis.soak;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.history.SignalChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;

/**
 * Signals for {@code soak.signal.minutes} (default 15) through faults ({@link SignalWorkload}): a sender publishes
 * 100 signals a second to two listeners, one connected to Redis directly and one through a fault proxy, while a
 * seeded nemesis kills -9 and restarts Redis, SIGSTOPs and CLIENT-PAUSEs it, slows and blackholes the proxy, and
 * every 1-4 s all pub/sub connections are killed ({@code CLIENT KILL TYPE pubsub}). Everyone records a history.
 *
 * <p>Asserted ({@link SignalChecker}, per listener): every signal sent during its subscription was heard or is
 * covered by a gap the library reported (none silently missed), none heard that nobody sent, none heard twice
 * (at-most-once delivery: a reconnection over a slow link once left a second subscribed connection behind);
 * and the faults cost signals (gaps were reported). Reported: the gap rate (gaps per minute, missed signals per
 * 1,000 sent) and the time from a pub/sub connection being killed to the gap being reported.
 */
class SignalSoak {
    @TempDir
    Path dir;

    @Test
    void everyMissedSignalIsCoveredByAReportedGap() throws Exception {
        Duration duration = SoakSettings.signalDuration();
        long seed = SoakSettings.seed("SignalSoak");
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.to(redis)) {
            new Harness("SignalSoak", "signals through faults and killed pub/sub connections", seed)
                    .add(new SignalWorkload(redis, proxy, dir.resolve("signals")))
                    .nemesis(pids -> Nemesis.builder(seed).servers(List.of(redis)).proxies(List.of(proxy))
                            .kinds(EnumSet.of(Nemesis.Kind.KILL_RESTART, Nemesis.Kind.PAUSE, Nemesis.Kind.CLIENT_PAUSE,
                                    Nemesis.Kind.LATENCY, Nemesis.Kind.BLACKHOLE))
                            .gap(Duration.ofMillis(2000), Duration.ofMillis(4000))
                            .hold(Duration.ofMillis(300), Duration.ofMillis(1500))
                            .restartDelay(Duration.ofMillis(500)).build())
                    .run(duration);
        }
    }
}
