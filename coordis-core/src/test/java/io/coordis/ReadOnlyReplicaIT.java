package io.coordis;

import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadOnlyReplicaIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.withReplicas(1);

    @Test
    void lockingOnAReplicaSaysPointAtTheMaster() {
        String replica = redis.group().replicas().get(0).uri();
        try (Coordis c = TestClients.connect(replica)) {
            assertThatThrownBy(() -> c.lock("ro").tryAcquire())
                    .isInstanceOf(CommandRejectedException.class)
                    .hasMessageContaining("read-only replica").hasMessageContaining("master");
        }
        try (Coordis c = TestClients.connect(redis.group().master().uri())) {
            assertThat(c.lock("ro").tryAcquire()).isPresent();
        }
    }
}
