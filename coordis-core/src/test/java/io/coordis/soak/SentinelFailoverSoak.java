package io.coordis.soak;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * {@code soak.failovers} (default 20) Sentinel failovers of a master with one replica watched by three
 * sentinels, while locks, a reliable queue and signals keep working through the {@code redis-sentinel://} URL
 * ({@link Failovers}, {@link ReplicatedWorkload}). The failovers alternate between {@code SENTINEL FAILOVER}
 * and a kill -9 of the master (which is restarted afterwards and rejoins as a replica), the seed choosing which
 * comes first, each after 5-15 s of quiet with the replica in sync.
 *
 * <p>What Coordis promises on Sentinel (README, docs/safety.md "Soak"): clients follow the master the sentinels
 * name; replication is asynchronous, so a failover may lose the latest lock grants (a fencing number handed out
 * again: a fenced violation) and queue messages; signal subscriptions lost in a failover are reported as gaps.
 * So this run asserts: every signal missed was covered by a reported gap; nothing delivered that was not pushed;
 * no fenced violation before the first failover; and after every failover the lock, the queue and the signals
 * resumed within 60 s (without that the figures per failover would measure nothing). It counts, per failover and
 * without failing on them, fenced violations, overlaps and messages lost, and reports the time to resume.
 */
class SentinelFailoverSoak {
    @TempDir
    Path dir;

    @Test
    void locksQueuesAndSignalsCarryOnThroughRepeatedFailovers() throws Exception {
        int count = SoakSettings.failovers();
        long seed = SoakSettings.seed("SentinelFailoverSoak");
        new Harness("SentinelFailoverSoak", "repeated Sentinel failovers", seed)
                .add(new Failovers("sentinel", Failovers.sentinel(), dir.resolve("sentinel"), count, true))
                .runUntilDone();
    }
}
