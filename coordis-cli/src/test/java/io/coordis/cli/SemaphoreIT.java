package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.lock.Permit;
import io.coordis.lock.Semaphore;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis semaphore} in its own JVM against a real redis-server, with {@code coordis lock}'s contract; and
 * semaphores in {@code ls} and {@code inspect}.
 */
class SemaphoreIT {
    private static final String UNTIL_TERM =
            "trap 'echo got-term; exit 0' TERM; echo ready; while true; do sleep 0.1; done";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    private long holders(String name) {
        return (Long) redis.server().command("ZCARD", Prefixed.key(name));
    }

    @Test
    void runsTheCommandWithNameAndTokenAndExitsWithItsStatus() {
        try (CliProcess cli = CliProcess.start("semaphore", "-u", redis.uri(), "--permits", "2", "it:sem", "--",
                "sh", "-c", "echo \"$COORDIS_SEMAPHORE_NAME $COORDIS_PERMIT_TOKEN\"; exit 3")) {
            assertThat(cli.exitCode()).isEqualTo(3);
            Matcher m = Pattern.compile("it:sem (\\d+)\n").matcher(cli.stdout());
            assertThat(m.matches()).as("stdout holds only the command's output: %s", cli.stdout()).isTrue();
            assertThat(cli.stderr()).isEqualTo("coordis: acquired a permit of 'it:sem' (token " + m.group(1) + ")\n");
        }
        assertThat(holders("it:sem")).isZero();
        assertThat(redis.server().command("EXISTS", Prefixed.derived("it:sem", "permits")))
                .as("idle: the count went with the last holder").isEqualTo(0L);
    }

    @Test
    void givesUpWhenNoPermitIsFreeWithTheConflictStatus() throws Exception {
        Semaphore pool = client.semaphore("it:full", 1);
        Permit theirs = pool.tryAcquire().orElseThrow();
        try (CliProcess cli = CliProcess.start("semaphore", "-u", redis.uri(), "--permits", "1", "-n", "it:full", "--",
                "true")) {
            assertThat(cli.exitCode()).isEqualTo(1);
            assertThat(cli.stderr()).contains("no permit of semaphore 'it:full' is free (1 permits); not waiting");
        }
        try (CliProcess cli = CliProcess.start("semaphore", "-u", redis.uri(), "--permits", "1", "-n", "-E", "9",
                "it:full", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(9);
        }
        try (CliProcess cli = CliProcess.start("semaphore", "-u", redis.uri(), "--permits", "1", "-w", "300ms",
                "it:full", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(1);
            assertThat(cli.stderr()).contains("gave up waiting for a permit of 'it:full' after 300ms");
        }
        assertThat(redis.server().command("ZCARD", Prefixed.derived("it:full", "waiters")))
                .as("the waiter that gave up left the line").isEqualTo(0L);
        try (CliProcess cli = CliProcess.start("semaphore", "-u", redis.uri(), "--permits", "1", "-w", "20s",
                "it:full", "--", "sh", "-c", "echo \"$COORDIS_PERMIT_TOKEN\"")) {
            cli.awaitStderr("waiting up to 20s");
            theirs.release();
            assertThat(cli.exitCode()).isZero();
            assertThat(Long.parseLong(cli.stdout().strip())).isGreaterThan(theirs.fencingToken());
        }
    }

    @Test
    void aLostPermitStopsTheCommandWithSigtermAndExits75() {
        try (CliProcess cli = CliProcess.start("semaphore", "-u", redis.uri(), "--permits", "3", "--ttl", "1s",
                "it:lost", "--", "sh", "-c", UNTIL_TERM)) {
            cli.awaitStdout("ready");
            assertThat(holders("it:lost")).isEqualTo(1);
            long deleted = System.nanoTime();
            redis.server().command("DEL", Prefixed.key("it:lost"));
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(Duration.ofNanos(System.nanoTime() - deleted)).isLessThan(Duration.ofSeconds(5));
            assertThat(cli.stdout()).isEqualTo("ready\ngot-term\n");
            assertThat(cli.stderr()).contains("lost permit of semaphore 'it:lost'", "stopping it")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void usageErrorsSayWhatToWrite() {
        InProcess cli = new InProcess();
        cli.assertUsageError(cli.run("semaphore", "-u", redis.uri(), "it:u", "--", "true"),
                "Missing required option: '--permits=N'", "coordis semaphore");
        cli.assertUsageError(cli.run("semaphore", "-u", redis.uri(), "--permits", "0", "it:u", "--", "true"),
                "--permits must be at least 1, was 0", "coordis semaphore");
        cli.assertUsageError(cli.run("semaphore", "-u", redis.uri(), "--permits", "2", "it:u"),
                "missing command: give the command to run after '--', e.g. coordis semaphore it:u --permits 2 -- ",
                "coordis semaphore");
        cli.assertUsageError(cli.run("semaphore", "-u", redis.uri(), "--permits", "2", "-n", "-w", "1s", "it:u", "--",
                "true"), "--wait and --nonblock exclude each other", "coordis semaphore");
    }

    @Test
    void lsAndInspectShowHoldersAndWaiters() throws Exception {
        Semaphore pool = client.semaphore("it:shown", 2);
        Permit held = pool.tryAcquire(2).orElseThrow();
        var waiting = pool.acquireAsync(Duration.ofSeconds(20));
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!redis.server().command("ZCARD", Prefixed.derived("it:shown", "waiters")).equals(1L)
                && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        InProcess cli = new InProcess();
        assertThat(cli.run("ls", "semaphores", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains("NAME", "PERMITS", "HELD", "WAITING")
                .containsPattern(Pattern.quote(Prefixed.key("it:shown")) + " +2 +2 +1 +1 +" + held.fencingToken());
        assertThat(cli.run("ls", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains("semaphores (1)");
        assertThat(cli.run("inspect", "semaphore", "it:shown", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains("holders:", held.token(), "waiters:");
        assertThat(cli.run("inspect", "semaphore", "it:shown", "-o", "json", "-u", redis.uri())).isZero();
        assertThat(TestJson.object(cli.out())).containsEntry("held", 2L);
        assertThat(cli.run("inspect", "semaphore", "it:none", "-u", redis.uri())).isEqualTo(1);
        held.release();
        waiting.get().orElseThrow().release();
    }
}
