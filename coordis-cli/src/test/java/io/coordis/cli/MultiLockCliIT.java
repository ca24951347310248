package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis lock NAME NAME... -- CMD} in its own JVM: a multi-lock, each name's number in the environment. */
class MultiLockCliIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void severalNamesAreHeldTogetherAndTheCommandSeesEachNumber() {
        try (Coordis client = TestClients.connect(redis.uri());
             CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "ml:a", "ml:b", "--", "sh", "-c",
                     "echo \"$COORDIS_LOCK_TOKENS\"; exit 4")) {
            assertThat(cli.exitCode()).isEqualTo(4);
            Matcher m = Pattern.compile("ml:a=(\\d+) ml:b=(\\d+)\n").matcher(cli.stdout());
            assertThat(m.matches()).as("stdout: %s", cli.stdout()).isTrue();
            assertThat(cli.stderr()).isEqualTo("coordis: acquired locks 'ml:a', 'ml:b' (tokens ml:a=" + m.group(1)
                    + " ml:b=" + m.group(2) + ")\n");
            for (String n : new String[]{"ml:a", "ml:b"}) {
                assertThat(client.lock(n).holder()).as("%s released", n).isEmpty();
                Lease after = client.lock(n).tryAcquire().orElseThrow();
                assertThat(after.fencingToken()).isGreaterThan(Long.parseLong(m.group(n.equals("ml:a") ? 1 : 2)));
                after.release();
            }
        }
    }

    @Test
    void aBusyNameIsNamedAndNothingIsTaken() {
        try (Coordis client = TestClients.connect(redis.uri())) {
            Lease theirs = client.lock("mb:b").tryAcquire().orElseThrow();
            try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "-n", "mb:a", "mb:b", "--", "true")) {
                assertThat(cli.exitCode()).isEqualTo(1);
                assertThat(cli.stderr()).contains("locks 'mb:a', 'mb:b' are busy ('mb:b' held by")
                        .contains("not waiting");
            }
            assertThat(client.lock("mb:a").holder()).as("all or none").isEmpty();
            theirs.release();
        }
    }

    @Test
    void sharedWithSeveralNamesIsAUsageError() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "--shared", "ms:a", "ms:b", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).contains("--shared takes a read hold of one NAME");
        }
    }

    @Test
    void fairWithSeveralNamesIsAUsageError() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "--fair", "mf:a", "mf:b", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).contains("--fair lines up waiters for one NAME");
        }
    }

    @Test
    void aDuplicateNameIsRefusedSayingWhatToWrite() {
        try (CliProcess cli = CliProcess.start("lock", "-u", redis.uri(), "md:a", "md:a", "--", "true")) {
            assertThat(cli.exitCode()).as(cli.stderr()).isNotZero();
            assertThat(cli.stderr()).contains("'md:a' is given twice");
        }
    }
}
