package io.coordis.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which Redis URL a command uses, and how lock options parse, without running anything. */
class CoordisCommandTest {

    private static ParseResult parse(Map<String, String> env, String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        return Main.commandLine(new Terminal(sink, sink, env)).parseArgs(args);
    }

    private static String urlOf(ParseResult result) {
        CoordisCommand root = (CoordisCommand) result.commandSpec().userObject();
        LockCommand lock = (LockCommand) result.subcommand().commandSpec().userObject();
        return root.url(lock.spec, lock.urls);
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
    void severalUrlsAreRefusedWhereverTheyAreGiven() {
        assertThatThrownBy(() -> urlOf(parse(Map.of(), "-u", "redis://a:1", "-u", "redis://b:2", "lock", "x", "--", "true")))
                .isInstanceOf(CommandLine.ParameterException.class);
        assertThatThrownBy(() -> urlOf(parse(Map.of(), "lock", "-u", "redis://a:1", "-u", "redis://b:2", "x", "--", "true")))
                .isInstanceOf(CommandLine.ParameterException.class);
        ParseResult result = parse(Map.of(), "-u", "redis://a:1", "lock", "-u", "redis://b:2", "x", "--", "true");
        assertThatThrownBy(() -> urlOf(result)).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("Redlock");
    }

    @Test
    void lockDefaultsAndOptions() {
        LockCommand lock = (LockCommand) parse(Map.of(), "lock", "x", "--", "sh", "-c", "exit 3")
                .subcommand().commandSpec().userObject();
        assertThat(lock.name).isEqualTo("x");
        assertThat(lock.command).containsExactly("sh", "-c", "exit 3");
        assertThat(lock.ttl).isEqualTo(Duration.ofSeconds(30));
        assertThat(lock.grace).isEqualTo(Duration.ofSeconds(10));
        assertThat(lock.wait).isNull();
        assertThat(lock.nonblock).isFalse();
        assertThat(lock.conflictExitCode).isEqualTo(1);

        lock = (LockCommand) parse(Map.of(), "lock", "--ttl", "1.5s", "-w", "2m", "-E", "9", "--grace", "500ms", "-q",
                "x", "--", "make", "--jobs", "@args").subcommand().commandSpec().userObject();
        assertThat(lock.ttl).isEqualTo(Duration.ofMillis(1500));
        assertThat(lock.wait).isEqualTo(Duration.ofMinutes(2));
        assertThat(lock.conflictExitCode).isEqualTo(9);
        assertThat(lock.grace).isEqualTo(Duration.ofMillis(500));
        assertThat(lock.quiet).isTrue();
        assertThat(lock.command).containsExactly("make", "--jobs", "@args");
    }
}
