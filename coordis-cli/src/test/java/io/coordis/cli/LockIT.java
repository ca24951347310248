package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.lock.Lease;
import io.coordis.lock.LockHolder;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis lock} in its own JVM against a real redis-server. */
class LockIT {
    /** A command that says it runs, then runs until SIGTERM, which it reports before exiting 0. */
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

    private Optional<LockHolder> holder(String name) {
        return client.lock(name).holder();
    }

    @Test
    void runsTheCommandWithNameAndTokenAndExitsWithItsStatus() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "it:exit", "--",
                "sh", "-c", "echo \"$COORDIS_LOCK_NAME $COORDIS_LOCK_TOKEN\"; exit 3")) {
            assertThat(cli.exitCode()).isEqualTo(3);
            Matcher m = Pattern.compile("it:exit (\\d+)\n").matcher(cli.stdout());
            assertThat(m.matches()).as("stdout holds only the command's output: %s", cli.stdout()).isTrue();
            assertThat(cli.stderr()).isEqualTo("coordis: acquired 'it:exit' (token " + m.group(1) + ")\n");
        }
        assertThat(holder("it:exit")).isEmpty();
    }

    @Test
    void holdsTheLockWhileTheCommandRunsAndReleasesItAfter() throws IOException {
        Path go = CliProcess.signalFile();
        try (CliProcess cli = CliProcess.start("lock", "--url", redis.uri(), "it:held", "--", "sh", "-c",
                "echo running; while [ ! -e \"$0\" ]; do sleep 0.05; done; echo done", go.toString())) {
            cli.awaitStdout("running");
            LockHolder holder = holder("it:held").orElseThrow();
            assertThat(holder.isCoordis()).isTrue();
            assertThat(holder.ttl()).hasValueSatisfying(ttl -> assertThat(ttl).isPositive());
            assertThat(client.lock("it:held").tryAcquire()).isEmpty();

            try (CliProcess second = CliProcess.start("lock", "-u", redis.uri(), "-n", "it:held", "--", "true")) {
                assertThat(second.exitCode()).isEqualTo(1);
                assertThat(second.stdout()).isEmpty();
                assertThat(second.stderr()).contains("lock 'it:held' is held by " + holder.holderId().orElseThrow())
                        .contains("not waiting");
            }
            try (CliProcess third = CliProcess.start("lock", "-u", redis.uri(), "-n", "-E", "9", "it:held", "--",
                    "true")) {
                assertThat(third.exitCode()).isEqualTo(9);
            }
            try (CliProcess fourth = CliProcess.start("lock", "-u", redis.uri(), "--wait", "300ms", "it:held", "--",
                    "true")) {
                assertThat(fourth.exitCode()).isEqualTo(1);
                assertThat(fourth.stderr()).contains("waiting up to 300ms for lock 'it:held' held by",
                        "gave up waiting for lock 'it:held' after 300ms");
            }
            assertThat(holder("it:held")).isPresent();

            Files.createFile(go);
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stdout()).isEqualTo("running\ndone\n");
        }
        assertThat(holder("it:held")).isEmpty();
    }

    @Test
    void waitsForABusyLockAndRunsOnceItIsReleased() throws InterruptedException {
        Lease theirs = client.lock("it:wait").tryAcquire().orElseThrow();
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "-w", "20s", "it:wait", "--",
                "sh", "-c", "echo \"$COORDIS_LOCK_TOKEN\"")) {
            cli.awaitStderr("waiting up to 20s for lock 'it:wait' held by");
            assertThat(cli.stderr()).contains("(token " + theirs.fencingToken() + ", ttl ");
            Thread.sleep(200);
            assertThat(cli.stdout()).isEmpty();
            theirs.release();
            assertThat(cli.exitCode()).isZero();
            assertThat(Long.parseLong(cli.stdout().strip())).isGreaterThan(theirs.fencingToken());
        }
    }

    @Test
    void fairWaitsInTheLineAndRunsOnceItIsItsTurn() throws InterruptedException {
        Lease theirs = client.lock("it:fair", io.coordis.lock.LockOptions.defaults().withFair(true)).tryAcquire()
                .orElseThrow();
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "--fair", "-w", "20s", "it:fair", "--",
                "sh", "-c", "echo \"$COORDIS_LOCK_TOKEN\"")) {
            cli.awaitStderr("waiting up to 20s for lock 'it:fair'");
            String line = Prefixed.derived("it:fair", "line");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while ((Long) redis.server().command("ZCARD", line) != 1L) {
                assertThat(System.nanoTime()).as("the command's place in line").isLessThan(deadline);
                Thread.sleep(20);
            }
            theirs.release();
            assertThat(cli.exitCode()).isZero();
            assertThat(Long.parseLong(cli.stdout().strip())).isGreaterThan(theirs.fencingToken());
        }
        try (CliProcess both = CliProcess.start("lock", "-u", redis.uri(), "--fair", "--shared", "it:fair", "--",
                "true")) {
            assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
            assertThat(both.stderr()).contains("--fair and --shared do not go together");
        }
    }

    @Test
    void quietShowsNoProgress() {
        Lease theirs = client.lock("it:quiet").tryAcquire().orElseThrow();
        try (CliProcess cli = CliProcess.start("lock", "-q", "-n", "-u", redis.uri(), "it:quiet", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(1);
            assertThat(cli.stderr()).isEmpty();
        }
        theirs.release();
        try (CliProcess cli = CliProcess.start("lock", "-q", "-u", redis.uri(), "it:quiet", "--", "echo", "hi")) {
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stdout()).isEqualTo("hi\n");
            assertThat(cli.stderr()).isEmpty();
        }
    }

    @Test
    void lostLockStopsTheCommandWithSigtermAndExits75() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "--ttl", "1s", "it:lost", "--",
                "sh", "-c", UNTIL_TERM)) {
            cli.awaitStdout("ready");
            assertThat(holder("it:lost")).isPresent();
            long deleted = System.nanoTime();
            redis.server().command("DEL", Prefixed.key("it:lost"));
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(Duration.ofNanos(System.nanoTime() - deleted)).isLessThan(Duration.ofSeconds(5));
            assertThat(cli.stdout()).isEqualTo("ready\ngot-term\n");
            assertThat(cli.stderr()).contains("lost lock 'it:lost'", "stopping it").doesNotContain("\tat ");
        }
    }

    @Test
    void commandIgnoringSigtermIsKilledAfterTheGracePeriod() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "--ttl", "1s", "--grace", "500ms",
                "it:stubborn", "--", "sh", "-c", "trap '' TERM; echo ready; while true; do sleep 0.1; done")) {
            cli.awaitStdout("ready");
            redis.server().command("DEL", Prefixed.key("it:stubborn"));
            assertThat(cli.exitCode(Duration.ofSeconds(10))).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(cli.stderr()).contains("SIGKILL after 500ms");
        }
    }

    @Test
    void sigtermToCoordisStopsTheCommandAndReleasesTheLockAtOnce() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "--ttl", "60s", "it:term", "--",
                "sh", "-c", UNTIL_TERM)) {
            cli.awaitStdout("ready");
            assertThat(holder("it:term")).isPresent();
            cli.terminate();
            assertThat(cli.exitCode()).isEqualTo(128 + 15);
            assertThat(cli.stdout()).as(cli.stderr()).isEqualTo("ready\ngot-term\n");
        }
        assertThat(holder("it:term")).as("released, not left to its 60s TTL").isEmpty();
    }

    @Test
    void missingCommandExits127AndReleases() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "it:missing", "--",
                "/nonexistent/coordis-no-such-command")) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
            assertThat(cli.stderr()).contains("cannot run '/nonexistent/coordis-no-such-command'")
                    .doesNotContain("\tat ");
        }
        assertThat(holder("it:missing")).isEmpty();
    }

    @Test
    void keyOfAnotherTypeExits65() {
        redis.server().command("RPUSH", Prefixed.key("it:list"), "a");
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "-n", "it:list", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.DATA_ERROR);
            assertThat(cli.stderr()).contains("it:list").doesNotContain("\tat ");
        }
    }

    @Test
    void redisDownExits69WithOneReadableLine() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (CliProcess cli = CliProcess.start("lock", "-u", "redis://127.0.0.1:" + closedPort, "it:down", "--",
                "true")) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(cli.stdout()).isEmpty();
            assertThat(cli.stderr()).startsWith("coordis: Redis at 127.0.0.1:" + closedPort + " is unavailable")
                    .doesNotContain("\tat ", "Exception");
            assertThat(cli.stderr().lines()).hasSize(1);
        }
    }

    @Test
    void urlFromTheEnvironmentIsUsed() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (CliProcess cli = CliProcess.startWithEnv("COORDIS_URL", "redis://127.0.0.1:" + closedPort,
                "lock", "it:env", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(cli.stderr()).contains("127.0.0.1:" + closedPort);
        }
    }

    @Test
    void wrongPasswordExits77WithoutShowingAnyPassword() {
        try (RedisServer secured = RedisServer.builder().requirePass("right-pass-4711").start()) {
            String wrong = "redis://:wrong-pass-0815@" + secured.address();
            try (CliProcess cli = CliProcess.start("lock", "-u", wrong, "it:auth", "--", "true")) {
                assertThat(cli.exitCode()).isEqualTo(ExitCodes.NO_PERMISSION);
                assertThat(cli.stderr()).contains("refused the credentials")
                        .doesNotContain("wrong-pass-0815", "right-pass-4711", "\tat ");
            }
            try (CliProcess cli = CliProcess.start("lock", "-u", secured.uri(), "it:auth", "--", "echo", "in")) {
                assertThat(cli.exitCode()).isZero();
                assertThat(cli.stdout()).isEqualTo("in\n");
                assertThat(cli.stderr()).doesNotContain("right-pass-4711");
            }
        }
    }
}
