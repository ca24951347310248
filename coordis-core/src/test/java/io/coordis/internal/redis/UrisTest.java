package io.coordis.internal.redis;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UrisTest {
    private static final Duration T = Duration.ofSeconds(1);

    @Test
    void redactsCredentials() {
        assertThat(Uris.redact("redis://alice:s3cret@host:6379/2")).isEqualTo("redis://***@host:6379/2");
        assertThat(Uris.redact("rediss://:s3cret@host")).isEqualTo("rediss://***@host");
        assertThat(Uris.redact("redis://host:6379")).isEqualTo("redis://host:6379");
        assertThat(Uris.redact(":hunter2@localhost:6379")).isEqualTo("***@localhost:6379");
        assertThat(Uris.redact("not a Redis URL: ':hunter2@localhost:6379'")).doesNotContain("hunter2");
    }

    @Test
    void parsesTlsUserPasswordAndDatabase() {
        var uri = Uris.parse("rediss://alice:s3cret@example:6380/3", T);
        assertThat(uri.isSsl()).isTrue();
        assertThat(uri.getDatabase()).isEqualTo(3);
        assertThat(Uris.address(uri)).isEqualTo("example:6380").doesNotContain("s3cret");
    }

    @Test
    void parsesSentinel() {
        var uri = Uris.parse("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/0#mymaster", T);
        assertThat(Uris.address(uri)).isEqualTo("sentinel master 'mymaster' via 127.0.0.1:26379,127.0.0.1:26380");
    }

    @Test
    void badUrlsSayWhatToWriteAndNeverRepeatThePassword() {
        assertThatThrownBy(() -> Uris.parse(" ", T)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://127.0.0.1:6379");
        assertThatThrownBy(() -> Uris.parse("localhost:6379", T)).hasMessageContaining("not a Redis URL");
        assertThatThrownBy(() -> Uris.parse(":hunter2@localhost:6379", T)).hasMessageContaining("not a Redis URL")
                .message().doesNotContain("hunter2");
        assertThatThrownBy(() -> Uris.parse("http://u:topsecret@host:6379", T))
                .isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("topsecret");
    }

    @Test
    void parsesClusterSeedsWithCredentialsAndTls() {
        assertThat(Uris.isCluster(" redis-cluster://h:1")).isTrue();
        assertThat(Uris.isCluster("rediss-cluster://h:1")).isTrue();
        assertThat(Uris.isCluster("redis://h:1")).isFalse();
        var seeds = Uris.parseCluster("redis-cluster://alice:s3cret@10.0.0.1:7000,10.0.0.2:7001", T);
        assertThat(seeds).hasSize(2);
        assertThat(seeds.get(1).getHost()).isEqualTo("10.0.0.2");
        assertThat(seeds.get(1).getPort()).isEqualTo(7001);
        var credentials = seeds.get(1).getCredentialsProvider().resolveCredentials().block();
        assertThat(credentials.getUsername()).isEqualTo("alice");
        assertThat(new String(credentials.getPassword())).isEqualTo("s3cret");
        assertThat(seeds.get(0).isSsl()).isFalse();
        assertThat(Uris.clusterAddress(seeds)).isEqualTo("cluster via 10.0.0.1:7000,10.0.0.2:7001");
        assertThat(Uris.parseCluster("rediss-cluster://h:7000/0?verifyPeer=NONE", T).get(0).isSsl()).isTrue();
        assertThat(Uris.redact("redis-cluster://alice:s3cret@h:1,h:2")).isEqualTo("redis-cluster://***@h:1,h:2");
    }

    @Test
    void badClusterUrlsSayWhatToWrite() {
        assertThatThrownBy(() -> Uris.parseCluster("redis-cluster://:pw@h:7000/2", T))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only database 0")
                .message().doesNotContain("pw@");
        assertThatThrownBy(() -> Uris.parseCluster("redis-cluster://h:7000,,h:7001", T))
                .hasMessageContaining("empty seed");
        assertThatThrownBy(() -> Uris.parseCluster("redis-cluster://:hunter2@h", T))
                .hasMessageContaining("has no port").message().doesNotContain("hunter2");
    }
}
