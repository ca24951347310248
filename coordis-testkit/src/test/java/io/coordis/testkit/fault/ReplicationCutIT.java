package io.coordis.testkit.fault;

import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A replica held back falls behind while its master keeps serving, WAIT sees that it has nothing new, and the
 * stream goes through once the cut is closed; a master without replicas is refused with a reason.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicationCutIT {
    @BeforeEach
    void needsNftables() {
        NetworkNamespace.requiredInCi("nftables rules");
    }

    @Test
    void theReplicaFallsBehindUntilTheCutIsClosed() {
        try (RedisGroup group = RedisGroup.masterWithReplicas(1, RedisServer.builder())) {
            RedisServer master = group.master();
            RedisServer replica = group.replicas().get(0);
            // WAIT waits for the offset of its own connection's last write
            assertThat(master.commandsOnOneConnection(new String[] {"SET", "before", "1"}, new String[] {"WAIT", "1", "2000"}))
                    .containsExactly("OK", 1L);
            try (ReplicationCut cut = ReplicationCut.of(master)) {
                assertThat(cut.replicaPorts()).as("%s", master.command("CLIENT", "LIST", "TYPE", "replica")).hasSize(1);
                assertThat(master.commandsOnOneConnection(new String[] {"SET", "during", "1"}, new String[] {"WAIT", "1", "300"}))
                        .containsExactly("OK", 0L);
                assertThat(master.command("GET", "during")).isEqualTo("1");
                assertThat(replica.command("GET", "during")).isNull();
                assertThat(replica.command("GET", "before")).isEqualTo("1");
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> "1".equals(replica.command("GET", "during")));
            assertThat(master.commandsOnOneConnection(new String[] {"SET", "after", "1"}, new String[] {"WAIT", "1", "2000"}))
                    .containsExactly("OK", 1L);
        }
    }

    @Test
    void aMasterWithoutReplicasIsRefusedWithTheReason() {
        try (RedisGroup group = RedisGroup.masters(1)) {
            assertThatThrownBy(() -> ReplicationCut.of(group.master())).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no replica connected");
        }
    }
}
