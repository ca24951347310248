package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.lock.Lease;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis force-unlock} in its own JVM against a lock another {@code coordis lock} process holds:
 * the holder's watchdog notices and stops its command (exit 75), the fence is bumped, the audit entry is
 * written; without a terminal and without --yes nothing happens.
 */
class ForceUnlockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        client.close();
    }

    /** The fencing counter of the lock {@code name}, as Redis holds it. */
    private static long counter(String name) {
        return Long.parseLong((String) redis.server().command("GET", Prefixed.derived(name, "fence")));
    }

    private static final String UNTIL_TERM = "trap 'echo got-term; exit 0' TERM; echo ready; while true; do sleep 0.1; done";

    @Test
    void forcingAHeldLockStopsItsHolderAndBumpsTheFence() {
        try (CliProcess holder = CliProcess.start("lock", "-u", redis.uri(), "--ttl", "3s", "it:forced", "--",
                "sh", "-c", UNTIL_TERM)) {
            holder.awaitStdout("ready");
            LockHolder before = client.lock("it:forced").holder().orElseThrow();
            long forcedFence = before.fencingToken().orElseThrow();
            long bumped;
            try (CliProcess force = CliProcess.start("force-unlock", "-u", redis.uri(), "it:forced", "--yes",
                    "--reason", "stuck deploy")) {
                assertThat(force.exitCode()).as(force.stderr()).isZero();
                bumped = counter("it:forced");
                assertThat(bumped).as("the counter bumped").isGreaterThan(forcedFence);
                assertThat(force.stdout()).isEqualTo("forced " + Prefixed.key("it:forced") + " holder="
                        + before.holderId().orElseThrow() + " fence=" + bumped + "\n");
                assertThat(force.stderr()).contains("lock 'it:forced' is held by " + before.holderId().orElseThrow());
            }
            // The holder's watchdog sees the lock gone at its next renewal (every second) and stops the command.
            assertThat(holder.exitCode(Duration.ofSeconds(20))).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(holder.stderr()).contains("lost lock 'it:forced'");
            Lease next = client.lock("it:forced").tryAcquire().orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(bumped);
            String audit = (String) redis.server().command("LINDEX", Prefixed.derived("it:forced", "audit"), "0");
            assertThat(audit).contains("\"action\":\"force-unlock\"", "\"reason\":\"stuck deploy\"",
                    "\"holder\":\"" + before.holderId().orElseThrow() + "\"", "\"fence\":" + bumped);
            next.release();
        }
    }

    @Test
    void inspectShowsWhoForcedItWhenAndWhy() throws Exception {
        Lease lease = client.lock("it:audited", LockOptions.defaults().withHolderId("dave@db2:17")).tryAcquire()
                .orElseThrow();
        long fence = lease.fencingToken();
        long before = System.currentTimeMillis();
        long forcer;
        long bumped;
        try (CliProcess force = CliProcess.start("force-unlock", "-u", redis.uri(), "it:audited", "--yes", "--reason",
                "db2 hung \"hard\"")) {
            assertThat(force.exitCode()).as(force.stderr()).isZero();
            bumped = counter("it:audited");
            assertThat(bumped).as("the counter bumped").isGreaterThan(fence);
            assertThat(force.stdout()).isEqualTo("forced " + Prefixed.key("it:audited") + " holder=dave@db2:17 fence="
                    + bumped + "\n");
            forcer = force.pid();
        }
        long after = System.currentTimeMillis();

        InProcess cli = new InProcess();
        assertThat(cli.run("inspect", "lock", "it:audited", "-o", "json", "-u", redis.uri())).as(cli.err()).isZero();
        Map<String, Object> doc = TestJson.object(cli.out());
        assertThat(doc).containsEntry("held", false).containsEntry("token", null).containsEntry("fenceCounter", bumped);
        List<Object> audit = TestJson.list(doc.get("audit"));
        assertThat(audit).hasSize(1);
        Map<String, Object> entry = TestJson.map(audit.get(0));
        // who: the force-unlock process itself, user@host:pid
        String me = LockOptions.defaults().holderId();
        assertThat(entry.get("by")).isEqualTo(me.substring(0, me.lastIndexOf(':') + 1) + forcer);
        assertThat((Long) entry.get("at")).as("when").isBetween(before, after);
        assertThat(entry).containsEntry("action", "force-unlock").containsEntry("reason", "db2 hung \"hard\"")
                .containsEntry("holder", "dave@db2:17").containsEntry("fence", bumped);

        assertThat(cli.run("inspect", "lock", "it:audited", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains(" force-unlock by " + entry.get("by") + ", holder dave@db2:17, fence now "
                + bumped + ", reason: db2 hung \"hard\"");
        lease.close();
    }

    @Test
    void withoutTerminalAndWithoutYesNothingIsForced() {
        Lease lease = client.lock("it:kept").tryAcquire().orElseThrow();
        try (CliProcess force = CliProcess.start("force-unlock", "-u", redis.uri(), "it:kept")) {
            assertThat(force.exitCode()).isEqualTo(ExitCodes.USAGE);
            assertThat(force.stderr()).contains("no terminal to ask on: pass --yes");
            assertThat(force.stdout()).isEmpty();
        }
        assertThat(lease.isHeld()).isTrue();
        assertThat(redis.server().command("GET", Prefixed.key("it:kept"))).isEqualTo(lease.token());
        lease.release();
    }

    @Test
    void onATerminalItAsksAndOnlyYesForces() {
        Lease lease = client.lock("it:asked").tryAcquire().orElseThrow();
        String holderId = client.lock("it:asked").holder().orElseThrow().holderId().orElseThrow();
        try (CliProcess no = CliProcess.startInTerminal("n\n", Map.of(), "force-unlock", "-u", redis.uri(), "it:asked")) {
            assertThat(no.exitCode()).as(no.stdout()).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(no.stdout()).contains("Force 'it:asked' open? Its holder loses it. [y/N]", "not forced");
        }
        assertThat(redis.server().command("GET", Prefixed.key("it:asked"))).isEqualTo(lease.token());
        try (CliProcess yes = CliProcess.startInTerminal("yes\n", Map.of(), "force-unlock", "-u", redis.uri(), "it:asked",
                "-o", "json")) {
            assertThat(yes.exitCode()).as(yes.stdout()).isZero();
            assertThat(yes.stdout()).contains("{\"name\":\"" + Prefixed.key("it:asked") + "\",\"holder\":\"" + holderId
                    + "\"");
        }
        assertThat(redis.server().command("EXISTS", Prefixed.key("it:asked"))).isEqualTo(0L);
    }

    @Test
    void aFreeLockIsReportedAndLeftAlone() {
        try (CliProcess force = CliProcess.start("force-unlock", "-u", redis.uri(), "it:free", "-y")) {
            assertThat(force.exitCode()).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(force.stderr()).isEqualTo("coordis: lock 'it:free' is not held; nothing to force\n");
        }
        assertThat(redis.server().command("EXISTS", Prefixed.derived("it:free", "fence"),
                Prefixed.derived("it:free", "audit"))).as("no number taken, nothing written").isEqualTo(0L);
    }
}
