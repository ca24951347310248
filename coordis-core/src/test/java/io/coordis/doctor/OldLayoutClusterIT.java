package io.coordis.doctor;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisCluster;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** On Redis Cluster the walk covers every master's keys, and removal reaches each key's own master. */
class OldLayoutClusterIT {

    @Test
    void findsAndRemovesTheLeftoversOnEveryMaster() throws Exception {
        try (RedisCluster cluster = RedisCluster.builder().masters(3).start()) {
            // keys under the test run's prefix, which a least-privilege run's ACL user is limited to
            List<String> names = cluster.keysOnEveryMaster(Prefixed.key("old:"));
            for (String name : names) {
                RedisServer master = cluster.masterForKey(name);
                master.command("SET", "{" + name + "}:fence", "5");
                master.command("HSET", "{" + name + "}:holder", "token", "t", "holder", "app@host:1");
            }
            try (Coordis coordis = TestClients.connect(cluster.uri())) {
                List<Finding> found = coordis.doctor().oldLayout();
                assertThat(found).singleElement().satisfies(f -> assertThat(f.message())
                        .startsWith(names.size() * 2 + " keys of the old per-name layout"));
                assertThat(coordis.doctor().removeOldLayout().get(0).total()).isEqualTo(names.size() * 2L);
            }
            for (String name : names) {
                assertThat(cluster.masterForKey(name).command("EXISTS", "{" + name + "}:fence", "{" + name + "}:holder"))
                        .isEqualTo(0L);
            }
        }
    }
}
