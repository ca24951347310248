package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exit codes every command keeps to, one real run each: 0, the child's own status, 1 (not acquired, empty,
 * timed out, nobody leads), 64 usage, 69 unavailable, 70 internal error, 77 permission. 75 (a lease or
 * leadership lost while the child ran) is shown by LockIT, ElectIT and ForceUnlockIT, which set up the loss.
 */
class ExitCodesIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    record Case(String what, int expected, String... args) {
    }

    @Test
    void everyCodeAsDocumented() {
        String url = redis.uri();
        redis.server().command("SET", Prefixed.key("ex:held"), "someone-else", "PX", "60000");
        redis.server().command("ACL", "SETUSER", "nobody", "on", ">pw", "~*", "&*", "-@all", "+hello", "+ping");
        String refused = "redis://nobody:pw@" + redis.server().address();
        List<Case> cases = List.of(
                new Case("lock acquired, child exits 0", 0, "-u", url, "lock", "ex:free", "--", "true"),
                new Case("the child's own status", 3, "-u", url, "lock", "ex:free", "--", "sh", "-c", "exit 3"),
                new Case("lock not acquired (-n)", 1, "-u", url, "lock", "ex:held", "-n", "--", "true"),
                new Case("queue empty", 1, "-u", url, "queue", "pop", "ex:empty"),
                new Case("no signal before the timeout", 1, "-u", url, "wait", "ex:quiet", "--timeout", "200ms"),
                new Case("nobody leads", 1, "-u", url, "leader", "ex:nobody"),
                new Case("unknown option", 64, "-u", url, "lock", "ex:x", "--frobnicate", "--", "true"),
                new Case("bad duration", 64, "-u", url, "lock", "ex:x", "--ttl", "soon", "--", "true"),
                new Case("unknown command", 64, "frobnicate"),
                new Case("unknown command with --help", 64, "frobnicate", "--help"),
                new Case("name over the length limit", 64, "-u", url, "lock", "x".repeat(2000), "--", "true"),
                new Case("queue name over the length limit", 64, "-u", url, "queue", "push", "q".repeat(2000), "m"),
                new Case("nothing listening", 69, "-u", "redis://127.0.0.1:1", "queue", "pop", "ex:q"),
                new Case("credentials without the rights", 77, "-u", refused, "queue", "pop", "ex:q"),
                new Case("wrong password", 77, "-u", "redis://nobody:wrong@" + redis.server().address(), "leader", "ex:e"),
                new Case("command not found", 127, "-u", url, "lock", "ex:free", "--", "/nonexistent/command"));
        List<String> wrong = new ArrayList<>();
        for (Case c : cases) {
            try (CliProcess cli = CliProcess.start(c.args())) {
                int status = cli.exitCode();
                if (status != c.expected()) {
                    wrong.add(c.what() + ": expected " + c.expected() + ", got " + status + " (" + cli.stderr().strip() + ")");
                }
                if (status >= 64) {
                    assertThat(cli.stderr()).as(c.what()).startsWith("coordis: ").doesNotContain("\tat ", "Exception");
                    assertThat(cli.stdout()).as(c.what()).isEmpty();
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void anUnexpectedFailureIs70() {
        String url = redis.uri();
        // standard input is a directory: reading the payload fails in a way no Redis error explains
        try (CliProcess cli = CliProcess.startWithStdinFrom("/", "-u", url, "signal", "ex:internal")) {
            assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(ExitCodes.SOFTWARE);
            assertThat(cli.stderr()).isEqualTo("coordis: cannot read the payload from standard input: Is a directory\n");
            assertThat(cli.stdout()).isEmpty();
        }
        // a failure nothing anticipated (here: standard input throws), run through the whole command line
        InProcess cli = new InProcess(new InputStream() {
            @Override
            public int read() {
                throw new IllegalStateException("stdin broke");
            }
        });
        assertThat(cli.run("-u", url, "signal", "ex:internal")).isEqualTo(ExitCodes.SOFTWARE);
        assertThat(cli.err()).isEqualTo("coordis: internal error: IllegalStateException: stdin broke\n"
                + "(run with --debug to see where it happened)\n");
        assertThat(cli.out()).isEmpty();
        assertThat(cli.run("--debug", "-u", url, "signal", "ex:internal")).isEqualTo(ExitCodes.SOFTWARE);
        assertThat(cli.err()).as("--debug shows where").contains("java.lang.IllegalStateException: stdin broke", "\tat ");
    }
}
