package io.coordis.cli;

import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis doctor} in its own JVM against real servers. */
class DoctorCommandIT {

    @Test
    void aHealthyServerExitsZeroWithOneLinePerFinding() {
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start();
             CliProcess cli = CliProcess.start("doctor", "-u", server.uri())) {
            assertThat(cli.exitCode()).as(cli.stderr()).isZero();
            List<String> lines = cli.stdout().lines().toList();
            assertThat(lines).anyMatch(l -> l.matches("OK\\s+127\\.0\\.0\\.1:\\d+\\s+version\\s+Redis .*"));
            assertThat(lines).anyMatch(l -> l.matches("OK\\s+\\S+\\s+eviction\\s+maxmemory-policy noeviction.*"));
            assertThat(lines).anyMatch(l -> l.matches("OK\\s+\\S+\\s+acl\\s+user 'default' may run every command.*"));
            assertThat(lines).anyMatch(l -> l.matches("OK\\s+\\S+\\s+persistence\\s+append-only file, fsync always.*"));
            assertThat(lines).noneMatch(l -> l.startsWith("FAIL") || l.startsWith("WARN"));
        }
    }

    @Test
    void anEvictingPolicyWarnsWithTheFixAndStillExitsZero() {
        try (RedisServer server = RedisServer.start()) {
            server.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            try (CliProcess cli = CliProcess.start("doctor", "-u", server.uri())) {
                assertThat(cli.exitCode()).as(cli.stderr()).isZero();
                List<String> lines = cli.stdout().lines().toList();
                int warn = -1;
                for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).matches("WARN\\s+\\S+\\s+eviction\\s+maxmemory-policy allkeys-lru.*")) {
                        warn = i;
                    }
                }
                assertThat(warn).as(cli.stdout()).isNotNegative();
                assertThat(lines.get(warn + 1).strip()).isEqualTo("-> CONFIG SET maxmemory-policy noeviction, and the same in redis.conf");
            }
        }
    }

    @Test
    void aUserMissingANeededCommandFailsWithExitOneAndNoPasswordShown() {
        try (RedisServer server = RedisServer.start()) {
            server.command("ACL", "SETUSER", "worker", "on", ">s3cret-canary", "~*", "&*", "+@all", "-evalsha");
            try (CliProcess cli = CliProcess.start("doctor", "-u", "redis://worker:s3cret-canary@" + server.address())) {
                assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(1);
                assertThat(cli.stdout()).containsPattern("FAIL\\s+\\S+\\s+acl\\s+user 'worker' may not run 1 command\\(s\\) "
                        + "Coordis needs: evalsha").contains("-> ACL SETUSER worker +evalsha");
                assertThat(cli.stdout() + cli.stderr()).doesNotContain("s3cret-canary");
            }
        }
    }

    @Test
    void jsonGivesEveryFieldForEveryNode() {
        try (RedisServer a = RedisServer.start(); RedisServer b = RedisServer.start(); RedisServer c = RedisServer.start();
             CliProcess cli = CliProcess.start("doctor", "-u", a.uri(), "-u", b.uri(), "-u", c.uri(), "-o", "json")) {
            assertThat(cli.exitCode()).as(cli.stderr()).isZero();
            Map<String, Object> doc = TestJson.object(cli.stdout().strip());
            assertThat(doc.get("worst")).isEqualTo("WARN"); // the test kit's servers have no persistence
            List<Object> nodes = TestJson.list(doc.get("nodes"));
            assertThat(nodes).hasSize(3);
            Map<String, Object> first = TestJson.map(nodes.get(0));
            assertThat(first.get("address")).isEqualTo(a.address());
            assertThat(first.get("version")).isEqualTo(a.version());
            assertThat(first.get("role")).isEqualTo("master");
            assertThat(first.get("maxmemoryPolicy")).isEqualTo("noeviction");
            assertThat(first.get("appendOnly")).isEqualTo(false);
            assertThat(first.get("user")).isEqualTo("default");
            assertThat(first.get("aclMethod")).isEqualTo("ACL GETUSER default");
            assertThat(TestJson.list(first.get("missingRequired"))).isEmpty();
            assertThat(first.get("clockOffsetMicros")).isInstanceOf(Number.class);
            assertThat(doc.get("skewMicros")).isInstanceOf(Number.class);
            List<Object> findings = TestJson.list(doc.get("findings"));
            assertThat(findings).extracting(f -> TestJson.map(f).get("topic"))
                    .contains("version", "role", "eviction", "persistence", "acl", "clock");
            assertThat(findings).allSatisfy(f -> assertThat(TestJson.map(f)).containsKeys("severity", "node", "message", "fix"));
        }
    }

    @Test
    void oldLayoutKeysAreReportedThenRemovedExceptTheDetailsOfALockStillHeld() {
        try (RedisServer server = RedisServer.start()) {
            server.command("ACL", "SETUSER", "cleaner", "on", ">s3cret-canary", "~*", "&*", "+@all");
            server.command("SET", Prefixed.derived("orders", "fence"), "7");
            server.command("HSET", Prefixed.derived("orders", "holder"), "token", "t1", "holder", "app@host:1");
            server.command("SET", Prefixed.key("busy"), "t2", "PX", "600000"); // the run's prefix, which doctor walks
            server.command("HSET", Prefixed.derived("busy", "holder"), "token", "t2", "holder", "app@host:2");
            server.command("SET", Prefixed.derived("reports", "term"), "4");
            String url = "redis://cleaner:s3cret-canary@" + server.address();
            try (CliProcess cli = CliProcess.start("doctor", "-u", url)) {
                assertThat(cli.exitCode()).as(cli.stderr()).isZero();
                assertThat(cli.stdout()).containsPattern("WARN\\s+\\S+\\s+old-layout\\s+4 keys of the old per-name "
                        + "layout never expire \\(1 \\{name}:fence, 2 \\{name}:holder, 1 \\{name}:term\\); about .* "
                        + "\\(MEMORY USAGE of 4 sampled keys, extrapolated\\)").contains("-> once no client of the old "
                        + "layout runs any more: coordis doctor --remove-old-layout");
                assertThat(cli.stdout() + cli.stderr()).doesNotContain("s3cret-canary");
            }
            try (CliProcess cli = CliProcess.start("doctor", "-u", url, "--remove-old-layout")) {
                assertThat(cli.exitCode()).as(cli.stderr()).isZero();
                assertThat(cli.stdout()).contains(server.address() + " removed 3 key(s) of the old per-name layout (1 "
                        + "{name}:fence, 1 {name}:holder, 1 {name}:term); kept 1 in use")
                        .contains("counters are removed always: new fencing numbers and terms are taken from Redis's "
                                + "clock and lie far above them");
                assertThat(cli.stdout() + cli.stderr()).doesNotContain("s3cret-canary");
            }
            assertThat(server.command("EXISTS", Prefixed.derived("orders", "fence"), Prefixed.derived("orders", "holder"), Prefixed.derived("reports", "term"))).isEqualTo(0L);
            assertThat(server.command("HGET", Prefixed.derived("busy", "holder"), "token")).isEqualTo("t2");
            try (CliProcess cli = CliProcess.start("doctor", "-u", url, "--remove-old-layout", "-o", "json")) {
                assertThat(cli.exitCode()).as(cli.stderr()).isZero();
                Map<String, Object> doc = TestJson.object(cli.stdout().strip());
                Map<String, Object> node = TestJson.map(TestJson.list(doc.get("removedOldLayout")).get(0));
                assertThat(node.get("node")).isEqualTo(server.address());
                assertThat(TestJson.map(node.get("removed"))).isEmpty();
                assertThat(node.get("kept")).isEqualTo(1L);
            }
        }
    }

    @Test
    void anUnreachableServerIsExit69InOneLine() {
        try (CliProcess cli = CliProcess.start("doctor", "-u", "redis://127.0.0.1:1")) {
            assertThat(cli.exitCode()).isEqualTo(69);
            assertThat(cli.stderr().strip().lines().count()).as(cli.stderr()).isEqualTo(1);
            assertThat(cli.stderr()).doesNotContain("\tat ");
        }
    }

    @Test
    void badOptionsAreUsageErrors() {
        try (CliProcess cli = CliProcess.start("doctor", "-u", "redis://127.0.0.1:1", "--max-skew", "0s")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).contains("--max-skew");
        }
        try (CliProcess cli = CliProcess.start("doctor", "-u", "redis://127.0.0.1:1", "-o", "yaml")) {
            assertThat(cli.exitCode()).isEqualTo(64);
        }
        try (CliProcess cli = CliProcess.start("doctor", "-u", "redis://127.0.0.1:1", "--remove-old-layout", "--user", "app")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).contains("--remove-old-layout").doesNotContain("\tat ");
        }
    }
}
