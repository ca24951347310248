package io.coordis.lock;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Reading what a lock keeps in Redis: its holder details and its audit entries. */
class LockLayoutTest {

    @Test
    void readsHolderDetailsAsTheAcquireScriptWritesThem() {
        LockLayout.HolderDetails d = LockLayout.holderDetails(List.of("token", "t1", "holder", "bob@web:7",
                "fence", "12", "since", "1700000000000", "ttl", "30000"));
        assertThat(d.holderId()).contains("bob@web:7");
        assertThat(d.fence()).isEqualTo(OptionalLong.of(12));
        assertThat(d.since()).contains(Instant.ofEpochMilli(1700000000000L));
        assertThat(d.leaseTtl()).contains(Duration.ofSeconds(30));
    }

    @Test
    void missingOrUnreadableHolderFieldsAreEmpty() {
        LockLayout.HolderDetails none = LockLayout.holderDetails(Map.of());
        assertThat(none.holderId()).isEmpty();
        assertThat(none.fence()).isEmpty();
        LockLayout.HolderDetails odd = LockLayout.holderDetails(Map.of("fence", "x", "since", "", "holder", "h"));
        assertThat(odd.fence()).isEmpty();
        assertThat(odd.since()).isEmpty();
        assertThat(odd.holderId()).contains("h");
    }

    @Test
    void auditEntriesKeepUnreadableFieldsEmptyAndTheRawText() {
        AuditEntry e = LockLayout.auditEntry("{\"at\":1700000000000,\"by\":\"bob@ops:7\",\"action\":\"force-unlock\","
                + "\"reason\":\"\",\"holder\":\"unknown\",\"fence\":9}");
        assertThat(e.at()).contains(Instant.ofEpochMilli(1700000000000L));
        assertThat(e.by()).contains("bob@ops:7");
        assertThat(e.action()).contains("force-unlock");
        assertThat(e.reason()).contains("");
        assertThat(e.holder()).contains("unknown");
        assertThat(e.fence()).isEqualTo(OptionalLong.of(9));
        assertThat(LockLayout.auditEntry("{\"by\":\"x\\\"y\\u0041\"}").by()).contains("x\"yA");
        AuditEntry odd = LockLayout.auditEntry("{\"at\":\"yesterday\",\"fence\":1.5}");
        assertThat(odd.at()).isEmpty();
        assertThat(odd.fence()).isEmpty();
        assertThat(odd.action()).isEqualTo(Optional.empty());
        for (String garbage : new String[] {"garbage", "{\"at\":1", "[1,2]", "", null}) {
            AuditEntry g = LockLayout.auditEntry(garbage);
            assertThat(g.raw()).isEqualTo(garbage);
            assertThat(g.at()).isEmpty();
            assertThat(g.by()).isEmpty();
        }
    }
}
