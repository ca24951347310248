package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Program;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Parsing and usage errors, run in-process; nothing here reaches Redis. */
class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return run(Map.of(), args);
    }

    private int run(Map<String, String> env, String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env);
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** A usage error: one line saying what is wrong, one pointing to --help, nothing on stdout. */
    private void assertUsageError(int status, String expected, String helpFor) {
        assertThat(status).isEqualTo(ExitCodes.USAGE);
        assertThat(out()).isEmpty();
        assertThat(err().lines()).hasSize(2);
        assertThat(err().lines().findFirst().orElseThrow()).startsWith("coordis: ").contains(expected);
        assertThat(err()).endsWith("Try '" + helpFor + " --help' for more information." + System.lineSeparator())
                .doesNotContain("\tat ", "Exception");
    }

    @Test
    void versionPrintsTheProjectVersion() {
        assertThat(run("--version")).isZero();
        assertThat(out()).startsWith("coordis 0.").doesNotContain("${");
        assertThat(err()).isEmpty();
    }

    @Test
    void aSubcommandsVersionIsTheSameLineAsTheShortcutsAndAGlobalOptionBeforeItStillCounts() {
        assertThat(run("--version")).isZero();
        String alone = out();
        out.reset();
        assertThat(run("lock", "--version")).isZero();
        assertThat(out()).isEqualTo(alone);
        out.reset();
        assertThat(run("--debug", "-V")).isZero();
        assertThat(out()).isEqualTo(alone);
    }

    @Test
    void onlyTheSubcommandTheArgumentsNameIsBuiltUnlessHelpOrCompletionNeedsThemAll() {
        assertThat(Commands.subcommandNamed(new String[] {"lock", "n", "--", "true"})).isEqualTo("lock");
        assertThat(Commands.subcommandNamed(new String[] {"-u", "redis://h:1", "--debug", "queue", "pop", "q"}))
                .isEqualTo("queue");
        assertThat(Commands.subcommandNamed(new String[] {"--url=redis://h:1", "--key-prefix", "lock", "ls"}))
                .as("the value of --key-prefix is not a subcommand").isEqualTo("ls");
        assertThat(Commands.subcommandNamed(new String[] {"--help"})).isNull();
        assertThat(Commands.subcommandNamed(new String[] {"completion", "bash"})).isNull();
        assertThat(Commands.subcommandNamed(new String[] {"lok", "n"})).as("a typo gets the full list").isNull();
        assertThat(run("lok", "n")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("lok");
    }

    @Test
    void helpListsCommandsAndExitStatuses() {
        assertThat(run("--help")).isZero();
        assertThat(out()).contains("lock", "demo", "--url", "COORDIS_URL", "75");
        assertThat(err()).isEmpty();
    }

    @Test
    void lockHelpShowsTheSynopsisAndOptions() {
        assertThat(run("lock", "--help")).isZero();
        assertThat(out()).contains("NAME -- CMD", "--ttl", "--wait", "--nonblock", "--conflict-exit-code", "--grace",
                "--quiet", "COORDIS_LOCK_TOKEN", "30s");
    }

    @Test
    void noCommandIsAUsageError() {
        assertUsageError(run(), "missing command: use one of lock, semaphore, rate, signal, wait, demo", "coordis");
    }

    @Test
    void unknownCommandSuggestsTheNearestOne() {
        assertThat(run("lokc")).isEqualTo(ExitCodes.USAGE);
        assertThat(err()).contains("unknown command 'lokc'", "Did you mean: coordis lock", "Try 'coordis --help'")
                .doesNotContain("\tat ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--help", "-h", "--version", "-V"})
    void unknownCommandIsAUsageErrorAlsoWhenHelpOrVersionIsAskedFor(String flag) {
        assertUsageError(run("frobnicate", flag), "unknown command 'frobnicate': use one of lock, semaphore, rate, signal, "
                + "wait, demo, elect, leader, queue, ls, inspect, dashboard, force-unlock, doctor, completion", "coordis");
    }

    @Test
    void unknownSubcommandIsAUsageErrorNamingTheCommandsItHas() {
        assertThat(run("queue", "frobnicate", "--help")).isEqualTo(ExitCodes.USAGE);
        assertThat(out()).isEmpty();
        assertThat(err()).startsWith("coordis: unknown command 'queue frobnicate': use one of push, pop, ack, nack, "
                + "requeue, stats, work" + System.lineSeparator()).contains("Try 'coordis queue --help'");
        err.reset();
        assertThat(run("lokc", "--help")).isEqualTo(ExitCodes.USAGE);
        assertThat(out()).isEmpty();
        assertThat(err()).contains("unknown command 'lokc'", "Did you mean: coordis lock", "Try 'coordis --help'");
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertUsageError(run("lock", "--bogus", "x", "--", "true"), "Unknown option: '--bogus'", "coordis lock");
    }

    @Test
    void missingNameIsAUsageError() {
        assertUsageError(run("lock"), "Missing required parameter: 'NAME'", "coordis lock");
    }

    @Test
    void missingCommandIsAUsageError() {
        assertUsageError(run("lock", "jobs:nightly"), "missing command: give the command to run after '--'",
                "coordis lock");
        out.reset();
        err.reset();
        assertUsageError(run("lock", "jobs:nightly", "--"), "missing command", "coordis lock");
    }

    @Test
    void commandWithoutTheSeparatorIsAUsageError() {
        assertUsageError(run("lock", "jobs:nightly", "make"), "put NAME before '--' and the command after it",
                "coordis lock");
    }

    @Test
    void nameAfterTheSeparatorIsAUsageError() {
        assertUsageError(run("lock", "--", "jobs:nightly", "make"), "put NAME before '--'", "coordis lock");
    }

    @Test
    void blankNameIsAUsageError() {
        assertUsageError(run("lock", " ", "--", "true"), "lock name must not be blank", "coordis lock");
    }

    @Test
    void ttlBelowTheMinimumIsAUsageError() {
        assertUsageError(run("lock", "--ttl", "50ms", "x", "--", "true"),
                "invalid --ttl: lock ttl must be at least 100ms, was 50ms", "coordis lock");
    }

    @Test
    void badDurationIsAUsageErrorShowingValidForms() {
        assertUsageError(run("lock", "--ttl", "abc", "x", "--", "true"),
                "invalid duration 'abc': use e.g. 500ms, 30s, 5m", "coordis lock");
        out.reset();
        err.reset();
        assertUsageError(run("lock", "--wait", "5", "x", "--", "true"), "invalid duration '5'", "coordis lock");
    }

    @Test
    void waitAndNonblockExcludeEachOther() {
        assertUsageError(run("lock", "-n", "--wait", "5s", "x", "--", "true"),
                "--wait and --nonblock exclude each other", "coordis lock");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "256"})
    void conflictExitCodeMustFitAnExitStatus(String code) {
        assertUsageError(run("lock", "-E", code, "x", "--", "true"), "--conflict-exit-code must be in 0..255",
                "coordis lock");
    }

    @Test
    void negativeGraceIsRejectedByTheParser() {
        assertUsageError(run("lock", "--grace", "-1s", "x", "--", "true"), "invalid duration '-1s'", "coordis lock");
    }

    @Test
    void twoUrlsAreAUsageErrorWithoutShowingPasswords() {
        assertUsageError(run("-u", "redis://a:6379", "-u", "redis://:s3cret@b:6379", "lock", "x", "--", "true"),
                "give one URL, or at least 3 independent masters for Redlock", "coordis lock");
        assertThat(err()).doesNotContain("s3cret").contains("redis://***@b:6379");
    }

    @Test
    void twoUrlsInTheEnvironmentAreAUsageError() {
        assertUsageError(run(Map.of("COORDIS_URL", "redis://a:6379,redis://b:6379"), "lock", "x", "--", "true"),
                "got 2 Redis URLs [redis://a:6379, redis://b:6379]: give one URL, or at least 3", "coordis lock");
    }

    @Test
    void lockHelpExplainsRedlockAndTheRestartGuard() {
        assertThat(run("lock", "--help")).isZero();
        assertThat(out()).contains("Redlock", "--no-restart-guard", "appendfsync always", "--node-timeout",
                "2 URLs are refused");
    }

    @Test
    void nodeTimeoutBelowOneMillisecondIsAUsageError() {
        assertUsageError(run("lock", "--node-timeout", "0ms", "x", "--", "true"), "invalid --node-timeout",
                "coordis lock");
    }

    @Test
    void demoRunsOnOneRedis() {
        assertUsageError(run("demo", "-u", "redis://a:1", "-u", "redis://b:2", "-u", "redis://c:3"),
                "'demo' runs on one Redis: give one --url", "coordis demo");
    }

    @Test
    void malformedUrlIsAUsageErrorWithoutShowingThePassword() {
        assertUsageError(run("lock", "-u", "s3cret@localhost:6379", "x", "--", "true"), "not a Redis URL",
                "coordis lock");
        assertThat(err.toString()).doesNotContain("s3cret");
        err.reset();
        out.reset();
        assertUsageError(run("lock", "-u", ":hunter2@localhost:6379", "x", "--", "true"), "not a Redis URL",
                "coordis lock");
        assertThat(err.toString() + out).doesNotContain("hunter2");
    }

    @Test
    void demoChecksItsNumbers() {
        assertUsageError(run("demo", "--workers", "0"), "--workers must be in 1..32", "coordis demo");
        out.reset();
        err.reset();
        assertUsageError(run("demo", "--rounds", "1000"), "--rounds must be in 1..100", "coordis demo");
    }

    @Test
    void theDemosSecondJvmStartsThisEntryPoint() {
        assertThat(Program.MAIN_CLASS).isEqualTo(Main.class.getName());
    }
}
