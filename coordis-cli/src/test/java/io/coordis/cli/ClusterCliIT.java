package io.coordis.cli;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis -u redis-cluster://...} in its own JVM against a real 3-master cluster. */
class ClusterCliIT {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Object onOwner(String key, String... command) {
        try (RespClient c = cluster.masterForKey(key).client()) {
            return c.command(command);
        }
    }

    @Test
    void lockHoldsTheKeyOnItsSlotsMasterWhileTheCommandRuns() throws Exception {
        String key = cluster.keysOnEveryMaster(Prefixed.key("cli-lock-")).get(2);
        String name = key.substring(Prefixed.prefix().length());
        Path go = CliProcess.signalFile();
        try (CliProcess cli = CliProcess.start("-u", cluster.uri(), "lock", name, "--", "sh", "-c",
                "echo running; while [ ! -e \"$0\" ]; do sleep 0.05; done; echo done", go.toString())) {
            cli.awaitStdout("running");
            assertThat(onOwner(key, "EXISTS", key)).as("held on the master of its slot").isEqualTo(1L);
            Files.createFile(go);
            assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(0);
            assertThat(cli.stdout()).isEqualTo("running\ndone\n");
        }
        assertThat(onOwner(key, "EXISTS", key)).as("released").isEqualTo(0L);
    }

    @Test
    void queuePushPopAndReliablePopAckOnDifferentMasters() {
        for (String key : cluster.keysOnEveryMaster(Prefixed.key("cli-q-")).subList(0, 1)) {
            String name = key.substring(Prefixed.prefix().length());
            try (CliProcess push = CliProcess.start("queue", "push", "-u", cluster.uri(), name, "a", "b")) {
                assertThat(push.exitCode()).as(push.stderr()).isEqualTo(0);
                assertThat(push.stdout()).isEqualTo("2\n");
            }
            assertThat(onOwner(key, "LRANGE", key, "0", "-1")).isEqualTo(List.of("b", "a"));
            try (CliProcess pop = CliProcess.start("queue", "pop", "-u", cluster.uri(), name)) {
                assertThat(pop.exitCode()).as(pop.stderr()).isEqualTo(0);
                assertThat(pop.stdout()).isEqualTo("a\n");
            }
            String id;
            try (CliProcess pop = CliProcess.start("queue", "pop", "--reliable", "-o", "json", "-u", cluster.uri(), name)) {
                assertThat(pop.exitCode()).as(pop.stderr()).isEqualTo(0);
                Matcher m = Pattern.compile(".*\"id\":\"([0-9a-f]+/\\d+/\\d+)\".*\n").matcher(pop.stdout());
                assertThat(m.matches()).as(pop.stdout()).isTrue();
                id = m.group(1);
            }
            try (CliProcess ack = CliProcess.start("queue", "ack", "-u", cluster.uri(), name, id)) {
                assertThat(ack.exitCode()).as(ack.stderr()).isEqualTo(0);
                assertThat(ack.stdout()).isEqualTo("acked\n");
            }
            assertThat(onOwner(key, "LLEN", key)).isEqualTo(0L);
        }
    }

    @Test
    void aClusterAmongRedlockUrlsIsRefusedWithoutAStackTrace() {
        try (CliProcess cli = CliProcess.start("lock", "-u", cluster.uri() + ",redis://127.0.0.1:1,redis://127.0.0.1:2",
                "x", "--", "true")) {
            assertThat(cli.exitCode()).isNotZero();
            assertThat(cli.stderr()).contains("Redlock").contains("cluster").doesNotContain("\tat ");
            assertThat(cli.stderr().lines().findFirst().orElseThrow()).startsWith("coordis: ").contains("Redlock");
        }
    }
}
