package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A server whose default user may run only some commands, while the test kit itself logs in as administrator. */
class RestrictedDefaultUserIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder().restrictDefaultUser("-@all +get +set"));

    @RegisterExtension
    static final RedisExtension standalone = RedisExtension.standalone();

    @Test
    void clientsWithoutCredentialsGetOnlyTheGrantedCommandsAndTheKitGetsAll() {
        RedisServer server = redis.server();
        assertThat(server.isDefaultUserRestricted()).isTrue();
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
        try (RespClient anonymous = RespClient.connect(server.host(), server.port())) {
            assertThat(anonymous.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(anonymous.command("GET", "k")).isEqualTo("v");
            assertThatThrownBy(() -> anonymous.command("DEL", "k")).hasMessageStartingWith("NOPERM");
            assertThatThrownBy(() -> anonymous.command("FLUSHALL")).hasMessageStartingWith("NOPERM");
        }
        assertThat(server.command("DEL", "k")).isEqualTo(1L);
        assertThat(server.command("CONFIG", "GET", "maxmemory")).isNotNull();
    }

    @Test
    void theLeastPrivilegePassRestrictsPlainServersOnlyWhenAskedFor() {
        String env = System.getenv(RedisServerBuilder.LEAST_PRIVILEGE_ENV);
        boolean on = env != null && (env.equals("1") || env.equalsIgnoreCase("true"));
        assertThat(RedisServerBuilder.leastPrivilegeRules() != null).isEqualTo(on);
        if (on) {
            assertThat(RedisServerBuilder.leastPrivilegeRules()).startsWith("-@all +").contains("+evalsha", "+publish");
        }
        assertThat(standalone.server().isDefaultUserRestricted()).as("RedisExtension.standalone()").isEqualTo(on);
        if (on) {
            try (RespClient anonymous = RespClient.connect(standalone.server().host(), standalone.server().port())) {
                assertThatThrownBy(() -> anonymous.command("FLUSHALL")).hasMessageStartingWith("NOPERM");
                assertThat(anonymous.command("SET", Prefixed.key("lp:k"), "v")).isEqualTo("OK");
                assertThat(anonymous.command("SET", Prefixed.derived("lp:k", "fence"), "1")).isEqualTo("OK");
                if (!Prefixed.prefix().isEmpty()) {
                    // with a prefix for the run, keys and channels outside it are out of bounds
                    assertThatThrownBy(() -> anonymous.command("SET", "lp:k", "v")).hasMessageStartingWith("NOPERM");
                    assertThatThrownBy(() -> anonymous.command("PUBLISH", "lp:c", "m")).hasMessageStartingWith("NOPERM");
                    assertThat(anonymous.command("PUBLISH", Prefixed.key("lp:c"), "m")).isEqualTo(0L);
                }
            }
        }
        try (RedisGroup plain = RedisGroup.masters(1, RedisServer.builder())) {
            // a group started directly is never restricted; only RedisExtension.masters applies the pass
            assertThat(plain.server(0).isDefaultUserRestricted()).isFalse();
        }
    }

    @Test
    void replicasOfARestrictedMasterReplicateAsTheAdministratorAndAreRestrictedToo() throws Exception {
        try (RedisGroup group = RedisGroup.masterWithReplicas(1, RedisServer.builder().restrictDefaultUser("-@all +get +set"))) {
            RedisServer master = group.server(0);
            RedisServer replica = group.server(1);
            assertThat(replica.isDefaultUserRestricted()).isTrue();
            try (RespClient anonymous = RespClient.connect(master.host(), master.port());
                 RespClient onReplica = RespClient.connect(replica.host(), replica.port())) {
                assertThat(anonymous.command("SET", "r", "v")).isEqualTo("OK");
                long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
                while (!"v".equals(onReplica.command("GET", "r")) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(onReplica.command("GET", "r")).as("replicated").isEqualTo("v");
                assertThatThrownBy(() -> onReplica.command("INFO")).hasMessageStartingWith("NOPERM");
            }
            assertThat(replica.info("replication").get("master_link_status")).isEqualTo("up");
        }
    }

    @Test
    void aClusterOfRestrictedServersIsFormedSyncedAndFailedOverAsTheAdministrator() {
        try (RedisCluster cluster = RedisCluster.builder().masters(1).replicasPerMaster(1)
                .template(RedisServer.builder().restrictDefaultUser("-@all +get +set +cluster|nodes")).start()) {
            RedisServer master = cluster.masters().get(0);
            RedisServer replica = cluster.replicas().get(0);
            assertThat(cluster.servers()).allSatisfy(s -> assertThat(s.isDefaultUserRestricted()).isTrue());
            assertThat(replica.info("replication").get("master_link_status")).as("synced as the administrator")
                    .isEqualTo("up");
            try (RespClient anonymous = RespClient.connect(master.host(), master.port())) {
                assertThat(anonymous.command("SET", "k", "v")).isEqualTo("OK");
                assertThat(String.valueOf(anonymous.command("CLUSTER", "NODES"))).contains(cluster.nodeId(replica));
                assertThatThrownBy(() -> anonymous.command("CLUSTER", "FAILOVER")).hasMessageStartingWith("NOPERM");
            }
            cluster.failover(replica, false);
            assertThat(cluster.masterOf(0)).isSameAs(replica);
        }
    }

    @Test
    void theLeastPrivilegePassRestrictsClusterServersToo() {
        try (RedisCluster cluster = RedisCluster.builder().masters(1).start()) {
            assertThat(cluster.masters().get(0).isDefaultUserRestricted()).isEqualTo(RedisServerBuilder.leastPrivilegeRules() != null);
        }
    }

    @Test
    void aPasswordAndARestrictedDefaultUserDoNotMix() {
        assertThatThrownBy(() -> RedisServer.builder().requirePass("pw").restrictDefaultUser("-@all +get"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requirepass");
        assertThatThrownBy(() -> RedisServer.builder().restrictDefaultUser(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be empty");
    }
}
