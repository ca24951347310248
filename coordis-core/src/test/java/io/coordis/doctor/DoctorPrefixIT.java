package io.coordis.doctor;

import io.coordis.Coordis;
import io.coordis.RequiredCommands;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor of a client with a key prefix checks the user's key and channel rules against it. */
class DoctorPrefixIT {
    @Test
    void aUserLimitedToThePrefixPassesAndOneLimitedElsewhereFailsWithTheRulesToAdd() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            for (String user : List.of("billing", "misfit")) {
                List<String> rules = new ArrayList<>(List.of("ACL", "SETUSER", user, "on", ">pw", "resetkeys",
                        "resetchannels"));
                rules.addAll(RequiredCommands.keyPatterns(user + ":"));
                rules.addAll(List.of(RequiredCommands.aclRules(EnumSet.allOf(RequiredCommands.Use.class)).split(" ")));
                server.command(rules.toArray(String[]::new));
            }
            // as the doctor is meant to run: from an administrator's URL, naming the application's user
            try (Coordis admin = Coordis.builder().url(server.uri()).keyPrefix("billing:").connect()) {
                Finding ok = find(admin.doctor().examine(Optional.of("billing")));
                assertThat(ok.severity()).as(ok.message()).isEqualTo(Finding.Severity.OK);
                assertThat(ok.message()).contains("'billing'", "'billing:'");

                DoctorReport report = admin.doctor().examine(Optional.of("misfit"));
                Finding f = find(report);
                assertThat(f.severity()).isEqualTo(Finding.Severity.FAIL);
                assertThat(f.fix()).isEqualTo("ACL SETUSER misfit ~billing:* ~{billing:* &billing:* &{billing:*");
                assertThat(report.worst()).isEqualTo(Finding.Severity.FAIL);
            }
            try (Coordis plain = Coordis.connect(server.uri())) {
                assertThat(plain.doctor().examine(Optional.of("misfit")).findings())
                        .noneMatch(f -> f.topic().equals("acl-prefix"));
            }
        }
    }

    private static Finding find(DoctorReport report) {
        return report.findings().stream().filter(f -> f.topic().equals("acl-prefix")).findFirst()
                .orElseThrow(() -> new AssertionError("no acl-prefix finding in " + report.findings()));
    }
}
