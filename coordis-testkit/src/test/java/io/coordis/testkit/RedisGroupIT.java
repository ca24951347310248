package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisGroupIT {

    @Test
    void mastersAreIndependentServers() {
        List<RedisServer> servers;
        try (RedisGroup group = RedisGroup.masters(3)) {
            servers = group.servers();
            assertThat(group.size()).isEqualTo(3);
            assertThat(group.hasReplicas()).isFalse();
            assertThat(servers).extracting(RedisServer::port).doesNotHaveDuplicates();
            assertThat(group.uris()).containsExactlyElementsOf(servers.stream().map(RedisServer::uri).toList());
            group.server(0).command("SET", "only", "here");
            assertThat(group.server(1).command("GET", "only")).isNull();
            for (RedisServer s : servers) {
                assertThat(s.info("replication")).containsEntry("role", "master");
            }
            assertThatThrownBy(group::replicas).isInstanceOf(IllegalStateException.class);
        }
        assertThat(servers).noneMatch(RedisServer::isRunning);
    }

    @Test
    void replicasSyncWithTheMaster() {
        try (RedisGroup group = RedisGroup.masterWithReplicas(2)) {
            RedisServer master = group.master();
            assertThat(group.replicas()).hasSize(2);
            assertThat(master.info("replication")).containsEntry("connected_slaves", "2");
            master.command("SET", "replicated", "yes");
            for (RedisServer replica : group.replicas()) {
                assertThat(replica.info("replication"))
                        .containsEntry("role", "slave")
                        .containsEntry("master_port", Integer.toString(master.port()))
                        .containsEntry("master_link_status", "up");
                await().atMost(Duration.ofSeconds(5))
                        .until(() -> "yes".equals(replica.command("GET", "replicated")));
            }
        }
    }

    @Test
    void replicasAuthenticateToAPasswordProtectedMaster() {
        try (RedisGroup group = RedisGroup.masterWithReplicas(1, RedisServer.builder().requirePass("pw"))) {
            group.master().command("SET", "k", "v");
            RedisServer replica = group.replicas().get(0);
            await().atMost(Duration.ofSeconds(5)).until(() -> "v".equals(replica.command("GET", "k")));
        }
    }

    @Test
    void invalidGroupSizesAreRejected() {
        assertThatThrownBy(() -> RedisGroup.masters(0)).hasMessageContaining("at least one");
        assertThatThrownBy(() -> RedisGroup.masters(2, RedisServer.builder().port(6390)))
                .hasMessageContaining("fixed port");
    }
}
