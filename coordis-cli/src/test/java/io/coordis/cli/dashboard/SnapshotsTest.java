package io.coordis.cli.dashboard;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** What the dashboard shows of a Redis URL (never its credentials), and the throughput it charts. */
class SnapshotsTest {
    @Test
    void aUrlIsShownWithoutItsCredentialsOrQuery() {
        assertThat(Snapshots.shown("redis://app:s3cret@10.0.0.1:6379/2")).isEqualTo("redis://***@10.0.0.1:6379/2");
        assertThat(Snapshots.shown("rediss://:s3cret@cache:6380")).isEqualTo("rediss://***@cache:6380");
        assertThat(Snapshots.shown("redis://cache:6379?password=s3cret&timeout=5s")).isEqualTo("redis://cache:6379");
        assertThat(Snapshots.shown("redis-sentinel://:pw@s1:26379,s2:26379#main")).doesNotContain("pw");
        assertThat(Snapshots.shown("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
    }

    @Test
    void throughputIsTheSettledCountsChangePerSecondAndNeverNegative() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(Snapshots.perSecond(Map.of("settled", 100L), t, 150L, t.plusMillis(500))).isEqualTo(100.0);
        assertThat(Snapshots.perSecond(Map.of("settled", 100L), t, 100L, t.plusSeconds(1))).isZero();
        assertThat(Snapshots.perSecond(Map.of("settled", 100L), t, 3L, t.plusSeconds(1))).as("count lost").isZero();
        assertThat(Snapshots.perSecond(Map.of("settled", 1L), t, 2L, t)).as("no time passed").isZero();
        assertThat(Snapshots.perSecond(Map.of("settled", 0L), t, 1L, t.plusSeconds(3))).isEqualTo(0.33);
    }
}
