package io.coordis.cli.command;

import io.coordis.cli.Commands;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.Terminal;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which Redis URL a command uses, and how lock options parse, without running anything. */
class CoordisCommandTest {

    private static ParseResult parse(Map<String, String> env, String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        return Commands.commandLine(new Terminal(InputStream.nullInputStream(), sink, sink, env)).parseArgs(args);
    }

    private static List<String> urlsOf(ParseResult result) {
        GlobalOptions root = (GlobalOptions) result.commandSpec().userObject();
        LockCommand lock = (LockCommand) result.subcommand().commandSpec().userObject();
        return root.urls(lock.spec, lock.held.urls());
    }

    private static String urlOf(ParseResult result) {
        List<String> urls = urlsOf(result);
        assertThat(urls).hasSize(1);
        return urls.get(0);
    }

    private static LockCommand lockOf(String... args) {
        return (LockCommand) parse(Map.of(), args).subcommand().commandSpec().userObject();
    }

    @Test
    void defaultsToLocalRedis() {
        assertThat(urlOf(parse(Map.of(), "lock", "x", "--", "true"))).isEqualTo("redis://127.0.0.1:6379");
    }

    @Test
    void takesTheDefaultFromCoordisUrl() {
        Map<String, String> env = Map.of("COORDIS_URL", "redis://redis.internal:6380/2");
        assertThat(urlOf(parse(env, "lock", "x", "--", "true"))).isEqualTo("redis://redis.internal:6380/2");
    }

    @Test
    void blankCoordisUrlMeansTheDefault() {
        assertThat(urlOf(parse(Map.of("COORDIS_URL", " "), "lock", "x", "--", "true")))
                .isEqualTo("redis://127.0.0.1:6379");
    }

    @Test
    void anExplicitUrlWinsOverTheEnvironmentBeforeOrAfterTheSubcommand() {
        Map<String, String> env = Map.of("COORDIS_URL", "redis://from-env:6379");
        assertThat(urlOf(parse(env, "-u", "redis://before:6379", "lock", "x", "--", "true")))
                .isEqualTo("redis://before:6379");
        assertThat(urlOf(parse(env, "lock", "--url", "redis://after:6379", "x", "--", "true")))
                .isEqualTo("redis://after:6379");
    }

    @Test
    void threeOrMoreUrlsAreCombinedFromBeforeAndAfterTheSubcommandInOrder() {
        assertThat(urlsOf(parse(Map.of("COORDIS_URL", "redis://from-env:6379"),
                "-u", "redis://a:1", "lock", "-u", "redis://b:2", "--url", "redis://c:3", "x", "--", "true")))
                .containsExactly("redis://a:1", "redis://b:2", "redis://c:3");
        assertThat(urlsOf(parse(Map.of(), "-u", "redis://a:1", "-u", "redis://b:2", "-u", "redis://c:3",
                "-u", "redis://d:4", "-u", "redis://e:5", "lock", "x", "--", "true"))).hasSize(5);
    }

    @Test
    void coordisUrlMayHoldACommaSeparatedList() {
        Map<String, String> env = Map.of("COORDIS_URL", " redis://a:1, redis://b:2 ,rediss://c:3/2 ");
        assertThat(urlsOf(parse(env, "lock", "x", "--", "true")))
                .containsExactly("redis://a:1", "redis://b:2", "rediss://c:3/2");
    }

    @Test
    void aUrlMayHoldACommaSeparatedListToo() {
        assertThat(urlsOf(parse(Map.of(), "lock", "-u", "redis://a:1,redis://b:2", "-u", "redis://c:3", "x", "--",
                "true"))).containsExactly("redis://a:1", "redis://b:2", "redis://c:3");
    }

    @Test
    void theCommasOfASentinelUrlDoNotSplitIt() {
        assertThat(GlobalOptions.split("redis-sentinel://s1:26379,s2:26379,s3:26379/0#mymaster"))
                .containsExactly("redis-sentinel://s1:26379,s2:26379,s3:26379/0#mymaster");
        assertThat(GlobalOptions.split("redis-sentinel://s1:26379,s2:26379#m,redis://b:2"))
                .containsExactly("redis-sentinel://s1:26379,s2:26379#m", "redis://b:2");
    }

    @Test
    void twoUrlsAreRefusedWhereverTheyAreGiven() {
        String expected = "give one URL, or at least 3 independent masters for Redlock";
        assertThatThrownBy(() -> urlsOf(parse(Map.of(), "-u", "redis://a:1", "-u", "redis://b:2", "lock", "x", "--", "true")))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining(expected);
        assertThatThrownBy(() -> urlsOf(parse(Map.of(), "lock", "-u", "redis://a:1", "-u", "redis://b:2", "x", "--", "true")))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining(expected);
        ParseResult result = parse(Map.of(), "-u", "redis://a:1", "lock", "-u", "redis://b:2", "x", "--", "true");
        assertThatThrownBy(() -> urlsOf(result)).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining(expected);
        ParseResult fromEnv = parse(Map.of("COORDIS_URL", "redis://a:1,redis://b:2"), "lock", "x", "--", "true");
        assertThatThrownBy(() -> urlsOf(fromEnv)).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining(expected);
    }

    @Test
    void theSameUrlTwiceIsRefused() {
        assertThatThrownBy(() -> urlsOf(parse(Map.of(), "-u", "redis://a:1", "-u", "redis://b:2", "-u", "redis://a:1",
                "lock", "x", "--", "true")))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("redis://a:1 given twice");
    }

    @Test
    void redlockOptions() {
        LockCommand lock = lockOf("lock", "x", "--", "true");
        assertThat(lock.noRestartGuard).isFalse();
        assertThat(lock.nodeTimeout).isNull();
        lock = lockOf("lock", "--no-restart-guard", "--node-timeout", "200ms", "x", "--", "true");
        assertThat(lock.noRestartGuard).isTrue();
        assertThat(lock.nodeTimeout).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void defaultNodeTimeoutIsATenthOfTheTtlAtMost500ms() {
        assertThat(LockCommand.defaultNodeTimeout(Duration.ofSeconds(30))).isEqualTo(Duration.ofMillis(500));
        assertThat(LockCommand.defaultNodeTimeout(Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(200));
        assertThat(LockCommand.defaultNodeTimeout(Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void lockDefaultsAndOptions() {
        LockCommand lock = (LockCommand) parse(Map.of(), "lock", "x", "--", "sh", "-c", "exit 3")
                .subcommand().commandSpec().userObject();
        assertThat(lock.name).isEqualTo("x");
        assertThat(lock.command).containsExactly("sh", "-c", "exit 3");
        assertThat(lock.held.ttl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(lock.held.grace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(lock.held.maxWait()).isNull();
        assertThat(lock.held.nonblock()).isFalse();
        assertThat(lock.held.conflictExitCode()).isEqualTo(1);

        lock = (LockCommand) parse(Map.of(), "lock", "--ttl", "1.5s", "-w", "2m", "-E", "9", "--grace", "500ms", "-q",
                "x", "--", "make", "--jobs", "@args").subcommand().commandSpec().userObject();
        assertThat(lock.held.ttl()).isEqualTo(Duration.ofMillis(1500));
        assertThat(lock.held.maxWait()).isEqualTo(Duration.ofMinutes(2));
        assertThat(lock.held.conflictExitCode()).isEqualTo(9);
        assertThat(lock.held.grace()).isEqualTo(Duration.ofMillis(500));
        assertThat(lock.held.quiet()).isTrue();
        assertThat(lock.command).containsExactly("make", "--jobs", "@args");
    }
}
