package io.coordis.internal.doctor;

import io.coordis.doctor.Finding;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor's finding about a replicated master that keeps taking writes when cut off, without Redis. */
class ReplicationFindingTest {
    @Test
    void noMinReplicasToWriteIsAWarningThatSaysWhatToSet() {
        Finding f = ServerDoctor.replicationFinding("m:6379", 2, 0, 10);
        assertThat(f.severity()).isEqualTo(Finding.Severity.WARN);
        assertThat(f.topic()).isEqualTo("replication");
        assertThat(f.message()).contains("2 replica(s)", "min-replicas-to-write 0", "failover then loses");
        assertThat(f.fix()).isEqualTo("CONFIG SET min-replicas-to-write 1 and CONFIG SET min-replicas-max-lag 10 "
                + "(and the same in redis.conf)");
    }

    @Test
    void aLagAboveTenSecondsOrNoneIsAWarning() {
        assertThat(ServerDoctor.replicationFinding("m:6379", 1, 1, 60).severity()).isEqualTo(Finding.Severity.WARN);
        assertThat(ServerDoctor.replicationFinding("m:6379", 1, 1, 60).message()).contains("for 60 s");
        assertThat(ServerDoctor.replicationFinding("m:6379", 1, 1, 0).message()).contains("an unbounded time");
    }

    @Test
    void setAsAdvisedIsOk() {
        Finding f = ServerDoctor.replicationFinding("m:6379", 1, 1, 10);
        assertThat(f.severity()).isEqualTo(Finding.Severity.OK);
        assertThat(f.message()).contains("refuses writes within 10 s");
        assertThat(f.fix()).isEmpty();
    }
}
