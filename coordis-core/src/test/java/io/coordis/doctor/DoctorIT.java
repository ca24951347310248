package io.coordis.doctor;

import io.coordis.Coordis;
import io.coordis.RequiredCommands;
import io.coordis.TestClients;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The doctor against real servers set up well and badly. */
class DoctorIT {
    private static Finding finding(DoctorReport report, String topic) {
        return report.findings().stream().filter(f -> f.topic().equals(topic)).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + topic + "' finding in " + report.findings()));
    }

    private static String url(RedisServer server, String user, String password) {
        return "redis://" + user + ":" + password + "@" + server.address();
    }

    @Test
    void aPlainServerIsFineExceptForPersistenceAndEverythingIsRead() throws Exception {
        try (RedisServer server = RedisServer.start(); Coordis coordis = TestClients.connect(server.uri())) {
            DoctorReport report = coordis.doctor().examine();
            NodeFacts facts = report.nodes().get(0);
            assertThat(facts.address()).isEqualTo(server.address());
            assertThat(facts.version()).contains(server.version());
            assertThat(facts.role()).contains("master");
            assertThat(facts.maxmemoryPolicy()).contains("noeviction");
            assertThat(facts.user()).contains("default");
            assertThat(facts.aclMethod()).isEqualTo("ACL GETUSER default");
            assertThat(facts.missingRequired()).isEmpty();
            assertThat(facts.keyPatterns()).contains("~*");
            assertThat(facts.clockOffsetMicros()).isPresent();
            assertThat(facts.clockUncertaintyMicros().orElseThrow()).isGreaterThanOrEqualTo(0);

            assertThat(finding(report, "version").severity()).isEqualTo(Finding.Severity.OK);
            assertThat(finding(report, "role").severity()).isEqualTo(Finding.Severity.OK);
            assertThat(finding(report, "eviction").severity()).isEqualTo(Finding.Severity.OK);
            assertThat(finding(report, "acl").severity()).isEqualTo(Finding.Severity.OK);
            // the test kit runs Redis without persistence
            Finding persistence = finding(report, "persistence");
            assertThat(persistence.severity()).isEqualTo(Finding.Severity.WARN);
            assertThat(persistence.fix()).contains("appendonly yes");
            assertThat(report.worst()).isEqualTo(Finding.Severity.WARN);
        }
    }

    @Test
    void anEvictingPolicyIsAWarningThatSaysWhatToSet() throws Exception {
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start();
             Coordis coordis = TestClients.connect(server.uri())) {
            server.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            DoctorReport report = coordis.doctor().examine();
            Finding eviction = finding(report, "eviction");
            assertThat(eviction.severity()).isEqualTo(Finding.Severity.WARN);
            assertThat(eviction.message()).contains("allkeys-lru", "evict");
            assertThat(eviction.fix()).contains("maxmemory-policy noeviction");
            assertThat(finding(report, "persistence").severity()).isEqualTo(Finding.Severity.OK);
            assertThat(finding(report, "persistence").message()).contains("fsync always");
        }
    }

    @Test
    void aUserMissingANeededCommandFailsAndTheFixNamesIt() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            server.command("ACL", "SETUSER", "almost", "on", ">pw", "~*", "&*", "+@all", "-incr");
            try (Coordis coordis = Coordis.connect(url(server, "almost", "pw"))) {
                DoctorReport report = coordis.doctor().examine();
                assertThat(report.nodes().get(0).missingRequired()).containsExactly("incr");
                Finding acl = finding(report, "acl");
                assertThat(acl.severity()).isEqualTo(Finding.Severity.FAIL);
                assertThat(acl.message()).contains("'almost'", "incr");
                assertThat(acl.fix()).isEqualTo("ACL SETUSER almost +incr");
                assertThat(report.worst()).isEqualTo(Finding.Severity.FAIL);
                assertThat(report.toString()).doesNotContain("pw@");
            }
        }
    }

    @Test
    void aLeastPrivilegeUserBuiltFromRequiredCommandsPassesAndLosingOneCommandFails() throws Exception {
        try (RedisServer server = RedisServer.start(); Coordis admin = TestClients.connect(server.uri())) {
            List<String> rules = new java.util.ArrayList<>(List.of("ACL", "SETUSER", "app", "on", ">pw", "resetkeys",
                    "resetchannels"));
            rules.addAll(RequiredCommands.keyPatterns("app:"));
            rules.addAll(List.of(RequiredCommands.aclRules(EnumSet.allOf(RequiredCommands.Use.class)).split(" ")));
            server.command(rules.toArray(String[]::new));
            DoctorReport report = admin.doctor().examine(Optional.of("app"));
            NodeFacts facts = report.nodes().get(0);
            assertThat(facts.missingRequired()).as("judged from the rules and Redis's own categories").isEmpty();
            assertThat(facts.missingOptional()).isEmpty();
            assertThat(facts.keyPatterns()).contains("~app:*", "~{app:*");
            assertThat(finding(report, "acl").severity()).isEqualTo(Finding.Severity.OK);

            server.command("ACL", "SETUSER", "app", "-blmove", "-info");
            report = admin.doctor().examine(Optional.of("app"));
            assertThat(report.nodes().get(0).missingRequired()).containsExactly("blmove");
            assertThat(report.nodes().get(0).missingOptional()).containsExactly("info");
            assertThat(finding(report, "acl").severity()).isEqualTo(Finding.Severity.FAIL);
        }
    }

    @Test
    void whatTheUserMayNotReadIsUnknownNotAnError() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            server.command("ACL", "SETUSER", "app", "on", ">pw", "~*", "&*", "+@all", "-config", "-info", "-acl");
            try (Coordis coordis = Coordis.connect(url(server, "app", "pw"))) {
                DoctorReport report = coordis.doctor().examine();
                assertThat(report.findings()).filteredOn(f -> f.severity() == Finding.Severity.UNKNOWN)
                        .extracting(Finding::topic).contains("server", "persistence", "acl");
                assertThat(report.nodes().get(0).version()).isEmpty();
                assertThat(report.nodes().get(0).clockOffsetMicros()).isPresent();
            }
        }
    }

    @Test
    void aReplicaIsNamedAndTheLinkShown() throws Exception {
        try (RedisServer master = RedisServer.start();
             RedisServer replica = RedisServer.builder().replicaOf(master).start();
             Coordis coordis = TestClients.connect(replica.uri())) {
            DoctorReport report = coordis.doctor().examine();
            Finding role = finding(report, "role");
            assertThat(role.severity()).isIn(Finding.Severity.WARN, Finding.Severity.FAIL);
            assertThat(role.message()).contains("replica", "READONLY");
            assertThat(report.nodes().get(0).role()).contains("slave");
        }
    }

    @Test
    void redlockNodesHaveTheirClockSkewMeasured() throws Exception {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start(); RedisServer c = RedisServer.start();
             Coordis coordis = TestClients.connect(List.of(a.uri(), b.uri(), c.uri()))) {
            DoctorReport report = coordis.doctor().examine();
            assertThat(report.nodes()).hasSize(3);
            // one machine, one clock: the skew is within what the round trips can tell apart
            assertThat(report.skewMicros()).isPresent();
            assertThat(report.skewMicros().get()).isLessThanOrEqualTo(report.skewUncertaintyMicros().get() + 20_000);
            Finding clock = report.findings().stream().filter(f -> f.topic().equals("clock") && f.node().equals("*"))
                    .findFirst().orElseThrow();
            assertThat(clock.severity()).isEqualTo(Finding.Severity.OK);
            assertThat(clock.message()).contains("3 nodes");
        }
    }
}
