package io.coordis;

import io.coordis.election.ElectionOptions;
import io.coordis.lock.LockOptions;
import io.coordis.queue.QueueOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The replica wait as a value: its checks, and how options carry it (unset means the client's default). */
class ReplicationTest {
    @Test
    void noneIsTheDefaultAndOptionsLeaveItToTheClient() {
        assertThat(Replication.none().isNone()).isTrue();
        assertThat(Replication.none().replicas()).isZero();
        assertThat(LockOptions.defaults().replication()).isEmpty();
        assertThat(ElectionOptions.defaults().replication()).isEmpty();
        assertThat(QueueOptions.defaults().replication()).isEmpty();
    }

    @Test
    void optionsKeepWhatWasSet() {
        Replication r = Replication.toReplicas(2, Duration.ofMillis(50));
        assertThat(r.replicas()).isEqualTo(2);
        assertThat(r.timeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(r).isEqualTo(Replication.toReplicas(2, Duration.ofMillis(50)));
        assertThat(r.toString()).isEqualTo("Replication[2 replicas within 50ms]");
        assertThat(LockOptions.defaults().withReplication(r).replication()).contains(r);
        assertThat(LockOptions.defaults().withReplication(r).withTtl(Duration.ofSeconds(5)).replication()).contains(r);
        assertThat(LockOptions.defaults().withReplication(r).toString()).contains("replication=Replication[2 replicas");
        assertThat(ElectionOptions.defaults().withReplication(r).withTtl(Duration.ofSeconds(5)).replication())
                .contains(r);
        assertThat(QueueOptions.defaults().withReplication(r).withSlots(2).replication()).contains(r);
        assertThat(LockOptions.defaults().withReplication(Replication.none()).replication())
                .contains(Replication.none());
    }

    @Test
    void badValuesAreRefusedSayingWhatToWrite() {
        assertThatThrownBy(() -> Replication.toReplicas(0, Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 and 64, was 0").hasMessageContaining("Replication.none()");
        assertThatThrownBy(() -> Replication.toReplicas(65, Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 65");
        assertThatThrownBy(() -> Replication.toReplicas(1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replica timeout must be at least 1ms, was 0ms");
        assertThatThrownBy(() -> Replication.toReplicas(1, Duration.ofSeconds(11)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replica timeout must be at most 10s, was 11s");
        assertThatThrownBy(() -> Replication.toReplicas(1, Duration.ofNanos(1_500_000)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() -> Replication.toReplicas(1, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("Duration.ofMillis(50)");
        assertThatThrownBy(() -> LockOptions.defaults().withReplication(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("Replication.none()");
        assertThatThrownBy(() -> Coordis.builder().replication(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("Replication.none()");
    }
}
