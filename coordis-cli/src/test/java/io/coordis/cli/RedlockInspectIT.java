package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.coordis.cli.TestJson.list;
import static io.coordis.cli.TestJson.map;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis inspect lock} and {@code ls locks} over three Redlock masters: per-node detail and agreement. */
class RedlockInspectIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    private final InProcess cli = new InProcess();

    private static String[] on(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        for (String uri : redis.uris()) {
            all.add("-u");
            all.add(uri);
        }
        return all.toArray(String[]::new);
    }

    private static String address(RedisServer s) {
        return s.host() + ":" + s.port();
    }

    @Test
    void showsEachNodesTokenTtlAndFenceAndWhetherTheyAgree() throws Exception {
        LockOptions options = LockOptions.defaults().withTtl(Duration.ofSeconds(30)).withHolderId("carol@batch7:99")
                .withRestartGuard(false);
        try (Coordis coordis = TestClients.builder().urls(redis.uris()).connect();
             Lease lease = coordis.lock("rl:inspect", options).tryAcquire().orElseThrow()) {
            RedisServer odd = redis.servers().get(2);
            assertThat(odd.command("SET", Prefixed.key("rl:inspect"), "intruder", "XX", "PX", "30000")).isEqualTo("OK");

            assertThat(cli.run(on("inspect", "lock", "rl:inspect", "-o", "json"))).as(cli.err()).isZero();
            Map<String, Object> doc = TestJson.object(cli.out());
            assertThat(doc).containsEntry("mode", "redlock").containsEntry("nodes", 3L).containsEntry("agreeing", 2L)
                    .containsEntry("held", true).containsEntry("token", lease.token())
                    .containsEntry("fence", lease.fencingToken());
            assertThat(map(doc.get("holder"))).containsEntry("id", "carol@batch7:99");
            assertThat(list(doc.get("flags"))).containsExactly("nodes-disagree");
            List<Object> nodes = list(doc.get("perNode"));
            assertThat(nodes).hasSize(3);
            for (int i = 0; i < 2; i++) {
                Map<String, Object> n = map(nodes.get(i));
                assertThat(n).containsEntry("node", address(redis.servers().get(i)))
                        .containsEntry("token", lease.token()).containsEntry("holder", "carol@batch7:99")
                        .containsEntry("agrees", true).containsEntry("error", null);
                assertThat((Long) n.get("fence")).isPositive();
                assertThat((Long) n.get("ttlMs")).isBetween(1L, 30_000L);
            }
            Map<String, Object> third = map(nodes.get(2));
            assertThat(third).containsEntry("node", address(odd)).containsEntry("token", "intruder")
                    .containsEntry("holder", null).containsEntry("fence", null).containsEntry("agrees", false);
            assertThat((Long) third.get("fenceCounter")).as("the counter stays, only the value was replaced").isPositive();

            assertThat(cli.run(on("inspect", "lock", "rl:inspect"))).isZero();
            assertThat(cli.out()).contains("mode           redlock, 2 of 3 nodes agree")
                    .containsPattern(java.util.regex.Pattern.quote(address(odd)) + " +differs +intruder ");
            assertThat(cli.run(on("ls", "locks"))).isZero();
            assertThat(cli.out().lines().skip(1).findFirst().orElseThrow().split("\\s{2,}"))
                    .startsWith(Prefixed.key("rl:inspect"), "redlock 2/3", "carol@batch7:99", "batch7", "99")
                    .endsWith("nodes-disagree");

            RedisServer down = redis.servers().get(1);
            down.kill();
            try {
                assertThat(cli.run(on("inspect", "lock", "rl:inspect", "-o", "json"))).as(cli.err()).isZero();
                Map<String, Object> partial = TestJson.object(cli.out());
                assertThat(partial).containsEntry("agreeing", 1L).containsEntry("token", lease.token());
                Map<String, Object> failed = map(list(partial.get("perNode")).get(1));
                assertThat(failed).containsEntry("node", address(down)).containsEntry("agrees", false)
                        .containsEntry("token", null);
                assertThat((String) failed.get("error")).contains(address(down));
                assertThat(cli.run(on("ls", "locks", "-o", "json"))).as("a minority down still lists").isZero();
            } finally {
                down.restart(Duration.ZERO);
            }
        }
    }
}
