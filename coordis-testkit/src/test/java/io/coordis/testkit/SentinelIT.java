package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coordis.redis.runner.ProcessSupport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Sentinels run from the same redis-server binary, report the master, and fail over when it dies. */
class SentinelIT {

    @Test
    void sentinelsReportTheMasterAndKnowTheReplicasAndEachOther() {
        try (SentinelGroup group = SentinelGroup.start(1, 3, "kitmaster")) {
            RedisServer master = group.initialMaster();
            assertThat(group.master()).isSameAs(master);
            assertThat(group.replicas()).containsExactly(group.servers().get(1));
            assertThat(group.sentinelUri()).isEqualTo("redis-sentinel://"
                    + group.sentinel(0).address() + "," + group.sentinel(1).address() + ","
                    + group.sentinel(2).address() + "#kitmaster");
            for (RedisSentinel s : group.sentinels()) {
                assertThat(s.masterAddress()).contains(master.address());
                assertThat(s.masterState()).containsEntry("num-slaves", "1").containsEntry("num-other-sentinels", "2")
                        .containsEntry("quorum", "2").containsEntry("flags", "master");
                assertThat(s.pid()).isPositive().isNotEqualTo(master.pid());
                assertThat(s.port()).isNotEqualTo(master.port());
            }
            RedisSentinel first = group.sentinel(0);
            first.pause();
            assertThat(first.isPaused()).isTrue();
            assertThat(group.master()).isSameAs(master);
            first.resume();
            assertThat(first.masterAddress()).contains(master.address());
            assertThat(group.sentinel(0).command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void sentinelAuthenticatesToAPasswordProtectedMaster() {
        try (SentinelGroup group = SentinelGroup.start(1, 1, SentinelGroup.DEFAULT_MASTER_NAME,
                RedisServer.builder().requirePass("sentinel-Secret-1"))) {
            // start() returned, so the sentinel discovered the replica through INFO on the master: auth-pass works
            assertThat(group.sentinel(0).masterState()).containsEntry("num-slaves", "1").containsEntry("flags", "master");
            assertThat(group.sentinelUri()).startsWith("redis-sentinel://:sentinel-Secret-1@127.0.0.1:");
            String config = ProcessSupport.tail(group.sentinel(0).dir().resolve("redis.conf"), 200);
            assertThat(config).contains("auth-pass");
        }
    }

    @Test
    void serversWithARestrictedDefaultUserAreMonitoredAndFailedOverAsTheAdministrator() {
        try (SentinelGroup group = SentinelGroup.start(1, 1, SentinelGroup.DEFAULT_MASTER_NAME,
                RedisServer.builder().restrictDefaultUser("-@all +get +set +ping"))) {
            RedisServer old = group.master();
            assertThat(group.servers()).allSatisfy(s -> assertThat(s.isDefaultUserRestricted()).isTrue());
            // start() returned, so the sentinel discovered the replica through INFO as the administrator
            assertThat(group.sentinel(0).masterState()).containsEntry("num-slaves", "1");
            group.failover();
            RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(30));
            assertThat(promoted).isNotSameAs(old);
            // the old master, now a replica, syncs from the new one as the administrator too
            old.awaitReplicationLinkUp(Duration.ofSeconds(20));
            assertThat(old.info("replication")).containsEntry("role", "slave").containsEntry("master_link_status", "up");
            String config = ProcessSupport.tail(group.sentinel(0).dir().resolve("redis.conf"), 200);
            assertThat(config).contains("auth-user").contains(RedisServerBuilder.ADMIN_USER);
        }
    }

    @Test
    void killingTheMasterMakesTheSentinelsPromoteAReplica() {
        try (SentinelGroup group = SentinelGroup.start(2, 3)) {
            RedisServer old = group.master();
            old.command("SET", "before", "failover");
            group.redis().awaitReplicasInSync(Duration.ofSeconds(5));
            long start = System.nanoTime();
            old.kill();
            RedisServer promoted = group.awaitFailover(old, Duration.ofSeconds(30));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            System.out.println("sentinel failover after kill -9 of the master took " + took.toMillis() + " ms");
            assertThat(took).isLessThan(Duration.ofSeconds(30));
            assertThat(promoted).isNotSameAs(old).isIn(group.servers());
            assertThat(group.master()).isSameAs(promoted);
            assertThat((List<?>) promoted.command("ROLE")).first().isEqualTo("master");
            assertThat(promoted.command("SET", "after", "failover")).isEqualTo("OK");
            for (RedisSentinel s : group.sentinels()) {
                assertThat(s.masterAddress()).contains(promoted.address());
            }
            assertThat(group.replicas()).contains(old).hasSize(2);
        }
    }

    @Test
    void sentinelsForTlsServersAreRejectedClearly() {
        assertThatThrownBy(() -> SentinelGroup.start(0, 1, "m", RedisServer.builder().tls()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TLS");
    }
}
