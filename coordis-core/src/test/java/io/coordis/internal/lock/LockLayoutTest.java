package io.coordis.internal.lock;

import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;
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
    void readsReadHoldsAsTheReadScriptsWriteThem() {
        List<LockHolder> holds = LockLayout.readHolds("prices", List.of("r1", "1700000004000", "r2", "1700000009000"),
                List.of("r1:holder", "ann@web:1", "r1:fence", "7", "r1:since", "1699999990000", "r1:ttl", "30000",
                        "r2:holder", "bob@web:2", "r2:fence", "8"), 1700000000000L);
        assertThat(holds).extracting(LockHolder::token).containsExactly("r1", "r2");
        assertThat(holds.get(0).holderId()).contains("ann@web:1");
        assertThat(holds.get(0).fencingToken()).isEqualTo(OptionalLong.of(7));
        assertThat(holds.get(0).ttl()).contains(Duration.ofSeconds(4));
        assertThat(holds.get(0).since()).contains(Instant.ofEpochMilli(1699999990000L));
        assertThat(holds.get(1).ttl()).contains(Duration.ofSeconds(9));
        assertThat(holds.get(1).since()).isEmpty();
        assertThat(LockLayout.readHolds("prices", List.of(), List.of(), 0)).isEmpty();
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
    void readsAuditEntriesAsTheInspectorsScriptDecodesThem() {
        String raw = "{\"at\":1700000000000,\"by\":\"bob@ops:7\",\"action\":\"force-unlock\",\"reason\":\"\","
                + "\"holder\":\"unknown\",\"fence\":9}";
        AuditEntry e = LockLayout.auditEntry(List.of("raw", raw, "at", 1700000000000L, "fence", 9L, "by", "bob@ops:7",
                "action", "force-unlock", "reason", "", "holder", "unknown"));
        assertThat(e.at()).contains(Instant.ofEpochMilli(1700000000000L));
        assertThat(e.by()).contains("bob@ops:7");
        assertThat(e.action()).contains("force-unlock");
        assertThat(e.reason()).contains("");
        assertThat(e.holder()).contains("unknown");
        assertThat(e.fence()).isEqualTo(OptionalLong.of(9));
        assertThat(e.raw()).isEqualTo(raw);
    }

    @Test
    void auditFieldsTheScriptLeftOutAreEmptyAndTheRawTextStays() {
        AuditEntry some = LockLayout.auditEntry(List.of("raw", "{\"by\":\"x\",\"at\":\"yesterday\"}", "by", "x"));
        assertThat(some.by()).contains("x");
        assertThat(some.at()).isEmpty();
        assertThat(some.fence()).isEmpty();
        assertThat(some.action()).isEqualTo(Optional.empty());
        AuditEntry garbage = LockLayout.auditEntry(List.of("raw", "garbage"));
        assertThat(garbage.raw()).isEqualTo("garbage");
        assertThat(garbage.at()).isEmpty();
        assertThat(garbage.by()).isEmpty();
        assertThat(garbage.holder()).isEmpty();
    }
}
