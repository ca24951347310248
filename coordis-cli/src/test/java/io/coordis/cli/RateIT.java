package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.ratelimit.RateLimit;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis rate} in its own JVM against a real redis-server: runs the command when a permit is granted (with
 * its status), refuses with the conflict status otherwise, and waits exactly until a permit is due.
 */
class RateIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void runsTheCommandWhileThePermitsLastThenRefusesWithTheConflictStatus() {
        String[] rate = {"rate", "-u", redis.uri(), "--limit", "2/1m", "-n", "it:rate"};
        try (CliProcess cli = CliProcess.start(concat(rate, "--", "sh", "-c", "echo \"$COORDIS_RATE_NAME\"; exit 3"))) {
            assertThat(cli.exitCode()).isEqualTo(3);
            assertThat(cli.stdout()).isEqualTo("it:rate\n");
            assertThat(cli.stderr()).isEmpty();
        }
        try (CliProcess cli = CliProcess.start(concat(rate, "--", "true"))) {
            assertThat(cli.exitCode()).isZero();
        }
        assertThat(redis.server().command("EXISTS", Prefixed.derived("it:rate", "rate"))).isEqualTo(1L);
        try (CliProcess cli = CliProcess.start(concat(rate, "--", "sh", "-c", "echo ran"))) {
            assertThat(cli.exitCode()).isEqualTo(1);
            assertThat(cli.stdout()).as("not run").isEmpty();
            assertThat(cli.stderr()).contains("no permit of rate limiter 'it:rate' is due for", "not waiting");
        }
        try (CliProcess cli = CliProcess.start(concat(rate, "-E", "9", "-q", "--", "true"))) {
            assertThat(cli.exitCode()).isEqualTo(9);
            assertThat(cli.stderr()).isEmpty();
        }
        try (CliProcess cli = CliProcess.start("rate", "-u", redis.uri(), "--limit", "2/1m", "-w", "1s", "it:rate",
                "--", "true")) {
            assertThat(cli.exitCode()).as("due in about 30 s, not within 1 s").isEqualTo(1);
            assertThat(cli.stderr()).contains("longer than --wait 1s; not waiting");
        }
    }

    @Test
    void waitsUntilAPermitIsDue() {
        try (Coordis client = TestClients.connect(redis.uri())) {
            assertThat(client.rateLimiter("it:due", RateLimit.parse("1/6s")).tryAcquire().granted()).isTrue();
        }
        long taken = System.nanoTime();
        try (CliProcess cli = CliProcess.start("rate", "-u", redis.uri(), "--limit", "1/6s", "-w", "20s", "it:due",
                "--", "true")) {
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stderr()).contains("no permit of rate limiter 'it:due' is due for", "; waiting");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - taken)).as("ran once the next permit was due, within -w")
                .isBetween(Duration.ofMillis(5_900), Duration.ofSeconds(20));
    }

    @Test
    void usageErrorsSayWhatToWrite() {
        InProcess cli = new InProcess();
        cli.assertUsageError(cli.run("rate", "-u", redis.uri(), "it:u", "--", "true"),
                "Missing required option: '--limit=N/PERIOD'", "coordis rate");
        cli.assertUsageError(cli.run("rate", "-u", redis.uri(), "--limit", "10", "it:u", "--", "true"),
                "invalid --limit or --burst: rate limit '10' is not of the form PERMITS/PERIOD", "coordis rate");
        cli.assertUsageError(cli.run("rate", "-u", redis.uri(), "--limit", "0/1s", "it:u", "--", "true"),
                "at least 1 permit per period, got 0", "coordis rate");
        cli.assertUsageError(cli.run("rate", "-u", redis.uri(), "--limit", "10/1s", "--burst", "0", "it:u", "--",
                "true"), "burst must be at least 1 permit, got 0", "coordis rate");
        cli.assertUsageError(cli.run("rate", "-u", redis.uri(), "--limit", "10/1s", "it:u"),
                "missing command: give the command to run after '--', e.g. coordis rate it:u --limit 10/1s -- ",
                "coordis rate");
        cli.assertUsageError(cli.run("rate", "-u", redis.uri(), "--limit", "10/1s", "-n", "-w", "1s", "it:u", "--",
                "true"), "--wait and --nonblock exclude each other", "coordis rate");
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = new String[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
