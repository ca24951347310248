package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.coordis.redis.runner.ProcessSupport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
    void waitingForTheReplicationLinkOutlastsConnectionsClosedUnderIt() throws Exception {
        try (RedisGroup group = RedisGroup.masterWithReplicas(1)) {
            RedisServer master = group.master();
            RedisServer replica = group.replicas().get(0);
            replica.command("REPLICAOF", "127.0.0.1", Integer.toString(ProcessSupport.freePort()));
            // what a sentinel does to a server it reconfigures: end every normal client connection
            AtomicBoolean killing = new AtomicBoolean(true);
            AtomicLong killed = new AtomicLong();
            Thread killer = new Thread(() -> {
                while (killing.get()) {
                    killed.addAndGet((Long) replica.command("CLIENT", "KILL", "TYPE", "normal"));
                }
            }, "client-killer");
            killer.start();
            CompletableFuture<Void> waited;
            try {
                waited = CompletableFuture.runAsync(() -> replica.awaitReplicationLinkUp(Duration.ofSeconds(20)));
                Thread.sleep(1_000);
            } finally {
                killing.set(false);
                killer.join();
            }
            assertThat(waited).as("still waiting for the link, which is down").isNotDone();
            replica.command("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            waited.get(30, TimeUnit.SECONDS);
            assertThat(killed.get()).as("connections closed while waiting").isPositive();
            assertThat(replica.info("replication")).containsEntry("master_link_status", "up");
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
