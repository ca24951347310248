package io.coordis.doctor;

import io.coordis.Coordis;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The doctor finds the keys of the old per-name layout, written here with raw commands, and removes only those
 * not in use: a lock's holder details stay while the lock holds their token.
 */
class OldLayoutIT {

    @Test
    void findsTheLeftoversAndRemovesAllButTheHolderOfALockStillHeld() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            seedOldLayout(server, "");
            // not leftovers: a counter with an expiry, queue data, details with an expiry, a counter that is no number
            server.command("SET", "{recent}:fence", "1795950892340116", "PX", "600000");
            server.command("RPUSH", "{jobs}:dead", "payload");
            server.command("HSET", "{renewed}:holder", "token", "t9");
            server.command("PEXPIRE", "{renewed}:holder", "60000");
            server.command("SET", "{words}:fence", "not a number");
            server.command("SET", "plain", "1");

            try (Coordis coordis = Coordis.connect(server.uri())) {
                assertThat(coordis.doctor().examine().findings()).as("examine() stays cheap: no walk")
                        .noneMatch(f -> f.topic().equals("old-layout"));
                Finding found = oldLayout(coordis.doctor());
                assertThat(found.severity()).as(found.message()).isEqualTo(Finding.Severity.WARN);
                assertThat(found.message()).startsWith("6 keys of the old per-name layout never expire (2 {name}:fence, "
                        + "2 {name}:holder, 1 {name}:permits, 1 {name}:term); about ")
                        .contains("(MEMORY USAGE of 6 sampled keys, extrapolated)");
                assertThat(found.fix()).contains("coordis doctor --remove-old-layout").doesNotContain("redis://");

                List<OldLayoutRemoval> done = coordis.doctor().removeOldLayout();
                assertThat(done).hasSize(1);
                assertThat(done.get(0).removed()).isEqualTo(Map.of("fence", 2L, "holder", 1L, "permits", 1L, "term", 1L));
                assertThat(done.get(0).kept()).isEqualTo(1);

                assertThat(server.command("HGET", "{busy}:holder", "token")).as("the held lock's details").isEqualTo("t2");
                assertThat(server.command("EXISTS", "{orders}:fence", "{orders}:holder", "{busy}:fence",
                        "{reports}:term", "{pool}:permits")).isEqualTo(0L);
                assertThat(server.command("EXISTS", "{recent}:fence", "{jobs}:dead", "{renewed}:holder",
                        "{words}:fence", "plain", "busy")).isEqualTo(6L);

                Finding rest = oldLayout(coordis.doctor());
                assertThat(rest.message()).startsWith("1 key of the old per-name layout never expires (1 {name}:holder)");

                server.command("DEL", "busy"); // the holder leaves without releasing: now its details are a leftover
                assertThat(coordis.doctor().removeOldLayout().get(0).removed()).isEqualTo(Map.of("holder", 1L));
                Finding none = oldLayout(coordis.doctor());
                assertThat(none.severity()).as(none.message()).isEqualTo(Finding.Severity.OK);
            }
        }
    }

    @Test
    void aKeyPrefixLimitsTheWalkToTheNamesUnderIt() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            seedOldLayout(server, "tenant:");
            seedOldLayout(server, "other:");
            try (Coordis tenant = Coordis.builder().url(server.uri()).keyPrefix("tenant:").connect()) {
                assertThat(oldLayout(tenant.doctor()).message()).startsWith("6 keys");
                assertThat(tenant.doctor().removeOldLayout().get(0).total()).isEqualTo(5);
            }
            assertThat(server.command("EXISTS", "{tenant:orders}:fence", "{tenant:reports}:term")).isEqualTo(0L);
            assertThat(server.command("EXISTS", "{other:orders}:fence", "{other:orders}:holder", "{other:busy}:fence",
                    "{other:busy}:holder", "{other:reports}:term", "{other:pool}:permits")).isEqualTo(6L);
        }
    }

    /** What an earlier Coordis left: a released lock, a lock still held, an election's term, a semaphore's count. */
    private static void seedOldLayout(RedisServer server, String prefix) {
        server.command("SET", "{" + prefix + "orders}:fence", "7");
        server.command("HSET", "{" + prefix + "orders}:holder", "token", "t1", "holder", "app@host:1", "fence", "7");
        server.command("SET", prefix + "busy", "t2", "PX", "600000");
        server.command("SET", "{" + prefix + "busy}:fence", "3");
        server.command("HSET", "{" + prefix + "busy}:holder", "token", "t2", "holder", "app@host:2", "fence", "3");
        server.command("SET", "{" + prefix + "reports}:term", "4");
        server.command("SET", "{" + prefix + "pool}:permits", "3");
    }

    private static Finding oldLayout(Doctor doctor) throws InterruptedException {
        DoctorReport report = doctor.examine().with(doctor.oldLayout());
        return report.findings().stream().filter(f -> f.topic().equals("old-layout")).findFirst()
                .orElseThrow(() -> new AssertionError("no old-layout finding in " + report.findings()));
    }
}
