package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.testkit.BusyThreads;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A wrong password is exit 77 naming the credentials, never 69 with TLS advice, however the machine is loaded
 * (a refused handshake can reach Lettuce as a closed channel; the client tries again to hear the refusal), and
 * at once even when the command may wait: a refusal is not an outage to wait out.
 */
class WrongPasswordIT {
    private static final int RUNS = 200;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder().requirePass("pa55-Top-Secret"));

    @Test
    void everyWrongPasswordRunUnderLoadIs77WithoutTlsAdvice() throws Exception {
        String url = "redis://:Wrong-Guess-99@" + redis.server().address();
        List<String> wrong = new ArrayList<>();
        InProcess cli = new InProcess();
        try (BusyThreads busy = BusyThreads.start(4)) {
            for (int i = 0; i < RUNS; i++) {
                int status = cli.run("-u", url, "lock", "wp:job", "-w", "20s", "--", "true");
                String err = cli.err();
                if (status != ExitCodes.NO_PERMISSION || err.contains("rediss://") || !err.contains("refused the credentials")
                        || err.contains("Wrong-Guess-99")) {
                    wrong.add(status + ": " + err.strip());
                }
            }
        }
        assertThat(wrong).as("runs not reported as refused credentials (exit 77)").isEmpty();
    }

    @Test
    void aWrongPasswordWithALongWaitExits77WithoutWaiting() {
        long start = System.nanoTime();
        try (CliProcess cli = CliProcess.start("-u", "redis://:Wrong-Guess-99@" + redis.server().address(),
                "lock", "wp:job", "-w", "120s", "--", "true")) {
            assertThat(cli.exitCode(Duration.ofSeconds(110))).as(cli.stderr()).isEqualTo(ExitCodes.NO_PERMISSION);
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(cli.stderr()).contains("refused the credentials").doesNotContain("rediss://", "Wrong-Guess-99");
            System.out.println("wrong password with -w 120s: exit 77 after " + took.toMillis() + " ms");
            // a process start on a loaded machine takes seconds; a wait would take the whole 120 s
            assertThat(took).as("a refusal is not waited out").isLessThan(Duration.ofSeconds(60));
        }
    }
}
