package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.latch.CountDownLatch;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code coordis latch NAME count-down|await} against a real redis-server. */
class LatchIT {
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

    @Test
    void countDownPrintsTheCountLeftAndAWaitingAwaitExitsZeroWhenItOpens() {
        CountDownLatch latch = client.countDownLatch("it:latch", 2, Duration.ofMinutes(1));
        try (CliProcess waiting = CliProcess.start("latch", "-u", redis.uri(), "--count", "2", "-w", "30s",
                "it:latch", "await")) {
            waiting.awaitStderr("waiting up to 30s for latch 'it:latch' to open");
            await().atMost(Duration.ofSeconds(20)).until(() -> (Long) ((List<?>) redis.server()
                    .command("PUBSUB", "NUMSUB", latch.key())).get(1) == 1);
            InProcess cli = new InProcess();
            assertThat(cli.run("latch", "-u", redis.uri(), "it:latch", "count-down", "--count", "2", "--expire", "1m"))
                    .as(cli.err()).isZero();
            assertThat(cli.out()).isEqualTo("1" + System.lineSeparator());
            assertThat(waiting.isAlive()).isTrue();
            assertThat(cli.run("latch", "-u", redis.uri(), "--count", "2", "it:latch", "count-down")).isZero();
            assertThat(cli.out()).isEqualTo("0" + System.lineSeparator());
            assertThat(waiting.exitCode()).as(waiting.stderr()).isEqualTo(ExitCodes.OK);
            assertThat(waiting.stdout()).isEmpty();
            assertThat(waiting.stderr()).contains("latch 'it:latch' is open");
        }
        assertThat(latch.getCount()).isZero();
    }

    @Test
    void awaitExitsOneWhenTheWaitPassesAndZeroAtOnceOnceOpen() {
        InProcess cli = new InProcess();
        assertThat(cli.run("latch", "-u", redis.uri(), "--count", "3", "-w", "200ms", "it:closed", "await"))
                .as(cli.err()).isEqualTo(ExitCodes.NOT_OPEN);
        assertThat(cli.err()).contains("latch 'it:closed' is not open after 200ms (count 3)");
        assertThat(cli.run("latch", "-u", redis.uri(), "-q", "-w", "0", "it:closed", "await")).isEqualTo(1);
        assertThat(cli.err()).isEmpty();

        assertThat(cli.run("latch", "-u", redis.uri(), "it:open", "count-down")).isZero();
        assertThat(cli.out()).isEqualTo("0" + System.lineSeparator());
        assertThat(cli.run("latch", "-u", redis.uri(), "-q", "it:open", "await")).as(cli.err()).isZero();
        assertThat(cli.run("latch", "-u", redis.uri(), "it:open", "count-down")).isZero();
        assertThat(cli.out()).as("at zero a count down does nothing").isEqualTo("0" + System.lineSeparator());
    }

    @Test
    void refusesBadArgumentsAsUsageErrors() {
        InProcess cli = new InProcess();
        cli.assertUsageError(cli.run("latch", "-u", redis.uri(), "it:bad", "open"),
                "unknown action 'open': use count-down or await", "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", redis.uri(), "--count", "0", "it:bad", "count-down"),
                "--count must be at least 1, was 0", "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", redis.uri(), "--count", Long.toString(Long.MAX_VALUE), "it:bad",
                "count-down"), "--count must be at most 9007199254740991, was " + Long.MAX_VALUE, "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", redis.uri(), "--expire", "745h", "it:bad", "count-down"),
                "--expire must be between 1ms and 30d", "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", redis.uri(), "-w", "1s", "it:bad", "count-down"),
                "-w is for await", "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", redis.uri(), " ", "await"),
                "latch name must not be blank", "coordis latch");
    }
}
