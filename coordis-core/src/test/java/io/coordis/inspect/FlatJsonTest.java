package io.coordis.inspect;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

class FlatJsonTest {

    @Test
    void readsAFlatObject() {
        assertThat(FlatJson.parse(" {\"a\":\"x\\\"y\\u0041\", \"n\":-12, \"d\":1.5, \"t\":true, \"z\":null} "))
                .containsEntry("a", "x\"yA").containsEntry("n", -12L).containsEntry("d", 1.5)
                .containsEntry("t", true).containsEntry("z", null);
        assertThat(FlatJson.parse("{}")).isEmpty();
    }

    @Test
    void malformedTextGivesNothingRatherThanFailing() {
        assertThat(FlatJson.parse("not json")).isEmpty();
        assertThat(FlatJson.parse("{\"a\":1")).isEmpty();
        assertThat(FlatJson.parse("{\"a\":{\"b\":1}}")).isEmpty();
        assertThat(FlatJson.parse("{\"a\":1} trailing")).isEmpty();
        assertThat(FlatJson.parse(null)).isEqualTo(Map.of());
    }

    @Test
    void auditEntriesKeepUnreadableFieldsEmptyAndTheRawText() {
        AuditEntry e = AuditEntry.parse("{\"at\":1700000000000,\"by\":\"bob@ops:7\",\"action\":\"force-unlock\","
                + "\"reason\":\"\",\"holder\":\"unknown\",\"fence\":9}");
        assertThat(e.at()).contains(Instant.ofEpochMilli(1700000000000L));
        assertThat(e.by()).contains("bob@ops:7");
        assertThat(e.reason()).contains("");
        assertThat(e.fence()).isEqualTo(OptionalLong.of(9));
        AuditEntry odd = AuditEntry.parse("{\"at\":\"yesterday\"}");
        assertThat(odd.at()).isEmpty();
        assertThat(odd.action()).isEqualTo(Optional.empty());
        assertThat(AuditEntry.parse("garbage").raw()).isEqualTo("garbage");
    }
}
