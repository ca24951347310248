package io.coordis.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What the dashboard shows of a Redis URL: never its credentials. */
class SnapshotsTest {
    @Test
    void aUrlIsShownWithoutItsCredentialsOrQuery() {
        assertThat(Snapshots.shown("redis://app:s3cret@10.0.0.1:6379/2")).isEqualTo("redis://***@10.0.0.1:6379/2");
        assertThat(Snapshots.shown("rediss://:s3cret@cache:6380")).isEqualTo("rediss://***@cache:6380");
        assertThat(Snapshots.shown("redis://cache:6379?password=s3cret&timeout=5s")).isEqualTo("redis://cache:6379");
        assertThat(Snapshots.shown("redis-sentinel://:pw@s1:26379,s2:26379#main")).doesNotContain("pw");
        assertThat(Snapshots.shown("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
    }
}
