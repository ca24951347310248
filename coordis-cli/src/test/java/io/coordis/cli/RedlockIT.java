package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisGroup;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis lock} over 3 independent redis-servers (Redlock), in its own JVM. The servers are fresh,
 * so most tests pass {@code --no-restart-guard}; the guard itself is shown refusing fresh servers and
 * admitting servers that have been up longer than the TTL.
 */
class RedlockIT {
    private static final String NO_GUARD = "--no-restart-guard";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    /** {@code -u U1 -u U2 ... lock} followed by {@code args}. */
    private static String[] lockOn(List<String> uris, String... args) {
        List<String> all = new ArrayList<>();
        for (String uri : uris) {
            all.add("-u");
            all.add(uri);
        }
        all.add("lock");
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    private static List<Object> valuesOf(String key) {
        List<Object> values = new ArrayList<>();
        for (RedisServer s : redis.servers()) {
            values.add(s.command("GET", Prefixed.key(key)));
        }
        return values;
    }

    @Test
    void holdsTheKeyOnEveryNodeWhileTheCommandRunsAndRemovesItAfter() throws IOException {
        Path go = CliProcess.signalFile();
        try (CliProcess cli = CliProcess.start(lockOn(redis.uris(), NO_GUARD, "it:rl:held", "--", "sh", "-c",
                "echo \"running $COORDIS_LOCK_TOKEN\"; while [ ! -e \"$0\" ]; do sleep 0.05; done; echo done",
                go.toString()))) {
            cli.awaitStdout("running");
            List<Object> values = valuesOf("it:rl:held");
            for (int i = 0; i < 40 && values.contains(null); i++) { // a node not awaited may be set a moment later
                CliProcess.sleep(50);
                values = valuesOf("it:rl:held");
            }
            assertThat(values).as("the same token on every node").doesNotContainNull().hasSize(3);
            assertThat(values).containsOnly(values.get(0));
            Matcher m = Pattern.compile("running (\\d+)\n").matcher(cli.stdout());
            assertThat(m.matches()).as(cli.stdout()).isTrue();
            // the slowest node may answer after the majority's decision: not awaited, never refused
            assertThat(cli.stderr()).matches("coordis: acquired 'it:rl:held' \\(token " + m.group(1)
                    + "\\) on (3 of 3 nodes \\(Redlock\\)|2 of 3 nodes \\(Redlock\\); not awaited \\(a majority had decided\\): \\S+)\n");

            try (CliProcess second = CliProcess.start(lockOn(redis.uris(), NO_GUARD, "-n", "it:rl:held", "--",
                    "echo", "must not run"))) {
                assertThat(second.exitCode()).isEqualTo(ExitCodes.NOT_ACQUIRED);
                assertThat(second.stdout()).isEmpty();
                assertThat(second.stderr()).contains("lock 'it:rl:held' is held by", "on 3 of 3 nodes", "not waiting");
            }
            assertThat(valuesOf("it:rl:held")).isEqualTo(values);

            Files.createFile(go);
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stdout()).endsWith("done\n");
        }
        assertThat(valuesOf("it:rl:held")).containsOnlyNulls();
    }

    @Test
    void takesACommaSeparatedListFromCoordisUrl() {
        try (CliProcess cli = CliProcess.startWithEnv(CoordisCommand.URL_ENV, String.join(",", redis.uris()),
                "lock", NO_GUARD, "it:rl:env", "--", "sh", "-c", "echo \"$COORDIS_LOCK_NAME\"")) {
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stdout()).isEqualTo("it:rl:env\n");
            // the node verified first may answer after the majority's decision: not awaited, never refused
            assertThat(cli.stderr()).containsPattern("on (3 of 3 nodes \\(Redlock\\)|2 of 3 nodes \\(Redlock\\); not awaited)")
                    .doesNotContain("not on");
        }
        assertThat(valuesOf("it:rl:env")).containsOnlyNulls();
    }

    @Test
    void twoUrlsAreAUsageErrorAndRunNothing() {
        try (CliProcess cli = CliProcess.start(lockOn(redis.uris().subList(0, 2), "it:rl:two", "--", "echo", "ran"))) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.USAGE);
            assertThat(cli.stdout()).isEmpty();
            assertThat(cli.stderr()).contains("give one URL, or at least 3 independent masters for Redlock")
                    .doesNotContain("\tat ");
        }
        assertThat(valuesOf("it:rl:two")).containsOnlyNulls();
    }

    @Test
    void lockDeletedOnAMajorityOfNodesIsLostAndStopsTheCommand() {
        try (CliProcess cli = CliProcess.start(lockOn(redis.uris(), NO_GUARD, "--ttl", "1s", "it:rl:lost", "--",
                "sh", "-c", "trap 'echo got-term; exit 0' TERM; echo ready; while true; do sleep 0.1; done"))) {
            cli.awaitStdout("ready");
            redis.servers().get(0).command("DEL", Prefixed.key("it:rl:lost"));
            redis.servers().get(1).command("DEL", Prefixed.key("it:rl:lost"));
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(cli.stdout()).isEqualTo("ready\ngot-term\n");
            assertThat(cli.stderr()).contains("lost lock 'it:rl:lost'").doesNotContain("\tat ");
        }
    }

    @Test
    void aMinorityDownStillLocksAndAMajorityDownExits69NamingTheDeadNodes() {
        try (RedisGroup own = RedisGroup.masters(3)) {
            RedisServer first = own.server(1);
            RedisServer second = own.server(2);
            first.kill();
            try (CliProcess cli = CliProcess.start(lockOn(own.uris(), NO_GUARD, "it:rl:down", "--", "echo", "ran"))) {
                assertThat(cli.exitCode()).isZero();
                assertThat(cli.stdout()).isEqualTo("ran\n");
                assertThat(cli.stderr()).contains("on 2 of 3 nodes (Redlock); not on " + first.address());
            }

            second.kill();
            try (CliProcess cli = CliProcess.start(lockOn(own.uris(), NO_GUARD, "it:rl:down", "--", "echo", "ran"))) {
                assertThat(cli.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(cli.stdout()).isEmpty();
                assertThat(cli.stderr()).startsWith("coordis: cannot lock '" + Prefixed.key("it:rl:down") + "'")
                        .contains("failed nodes: " + first.address() + ", " + second.address())
                        .doesNotContain("\tat ");
                assertThat(cli.stderr().lines()).hasSize(1);
            }
            assertThat(own.server(0).command("EXISTS", Prefixed.key("it:rl:down"))).as("nothing left behind")
                    .isEqualTo(0L);
        }
    }

    @Test
    void restartGuardRefusesFreshlyStartedNodesWithAClearMessage() {
        try (RedisGroup fresh = RedisGroup.masters(3)) {
            try (CliProcess cli = CliProcess.start(lockOn(fresh.uris(), "it:rl:fresh", "--", "echo", "ran"))) {
                assertThat(cli.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(cli.stdout()).isEmpty();
                assertThat(cli.stderr()).startsWith("coordis: cannot lock '" + Prefixed.key("it:rl:fresh") + "'")
                        .contains(fresh.server(0).address() + " refused recent restart (up less than 30s; may vote in ",
                                "until it has been up longer than the lock's TTL + 1s", "--no-restart-guard",
                                "appendfsync always")
                        .doesNotContain("\tat ");
                assertThat(cli.stderr().lines()).hasSize(1);
            }
            try (CliProcess cli = CliProcess.start(lockOn(fresh.uris(), NO_GUARD, "it:rl:fresh", "--", "echo", "ran"))) {
                assertThat(cli.exitCode()).isZero();
                assertThat(cli.stdout()).isEqualTo("ran\n");
            }
        }
    }

    @Test
    void restartGuardAdmitsNodesUpLongerThanTheTtl() {
        // --ttl 1s: a node may vote once it has been up 2 s (uptime is counted in whole seconds)
        for (RedisServer s : redis.servers()) {
            while (Long.parseLong(s.info("server").get("uptime_in_seconds")) < 2) {
                CliProcess.sleep(100);
            }
        }
        try (CliProcess cli = CliProcess.start(lockOn(redis.uris(), "--ttl", "1s", "it:rl:guard", "--", "echo", "ran"))) {
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stdout()).isEqualTo("ran\n");
            // the node verified first may answer after the majority's decision: not awaited, never refused
            assertThat(cli.stderr()).containsPattern("on (3 of 3 nodes \\(Redlock\\)|2 of 3 nodes \\(Redlock\\); not awaited)")
                    .doesNotContain("not on");
        }
    }

    @Test
    void waitsForARedlockHeldByAnotherProcess() throws IOException {
        Path go = CliProcess.signalFile();
        try (CliProcess holder = CliProcess.start(lockOn(redis.uris(), NO_GUARD, "it:rl:wait", "--", "sh", "-c",
                "echo held; while [ ! -e \"$0\" ]; do sleep 0.05; done", go.toString()))) {
            holder.awaitStdout("held");
            try (CliProcess waiter = CliProcess.start(lockOn(redis.uris(), NO_GUARD, "-w", "20s", "it:rl:wait", "--",
                    "echo", "mine"))) {
                waiter.awaitStderr("waiting up to 20s for lock 'it:rl:wait' held by");
                assertThat(waiter.stdout()).isEmpty();
                Files.createFile(go);
                assertThat(holder.exitCode()).isZero();
                assertThat(waiter.exitCode()).isZero();
                assertThat(waiter.stdout()).isEqualTo("mine\n");
                assertThat(waiter.stderr()).containsPattern("acquired 'it:rl:wait' \\(token \\d+\\) on (3 of 3 nodes \\(Redlock\\)|2 of 3 nodes \\(Redlock\\); not awaited)")
                        .doesNotContain("not on");
            }
        }
    }
}
