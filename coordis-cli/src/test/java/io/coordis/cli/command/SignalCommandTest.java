package io.coordis.cli.command;

import io.coordis.cli.Commands;
import io.coordis.cli.InProcess;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParseResult;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis signal}: parsing, usage errors and reading the payload; nothing here reaches Redis. */
class SignalCommandTest {
    private final InProcess cli = new InProcess();

    private static SignalCommand parse(String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        ParseResult result = Commands.commandLine(new Terminal(InputStream.nullInputStream(), sink, sink, Map.of()))
                .parseArgs(args);
        return (SignalCommand) result.subcommand().commandSpec().userObject();
    }

    private static String payload(String stdin) {
        return SignalCommand.payload(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void defaultsAndOptions() {
        SignalCommand signal = parse("signal", "jobs:42:done");
        assertThat(signal.channel).isEqualTo("jobs:42:done");
        assertThat(signal.data).isNull();
        assertThat(signal.one).isFalse();
        assertThat(signal.latch).isNull();

        signal = parse("signal", "--latch", "1m30s", "-u", "redis://h:1", "ready", "-");
        assertThat(signal.latch).isEqualTo(Duration.ofSeconds(90));
        assertThat(signal.data).isEqualTo("-");
        assertThat(signal.urls.given).containsExactly("redis://h:1");

        signal = parse("signal", "--one", "work", "--", "-v");
        assertThat(signal.one).isTrue();
        assertThat(signal.data).as("data after -- may start with a dash").isEqualTo("-v");
    }

    @Test
    void missingChannelIsAUsageError() {
        cli.assertUsageError(cli.run("signal"), "Missing required parameter: 'CHANNEL'", "coordis signal");
    }

    @Test
    void emptyChannelIsAUsageError() {
        cli.assertUsageError(cli.run("signal", "", "x"), "channel must not be empty", "coordis signal");
    }

    @Test
    void moreThanOnePayloadIsAUsageError() {
        assertThat(cli.run("signal", "ch", "a", "b")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).contains("Unmatched argument", "'b'");
        assertThat(cli.out()).isEmpty();
    }

    @Test
    void badLatchDurationIsAUsageError() {
        cli.assertUsageError(cli.run("signal", "--latch", "soon", "ch", "x"), "invalid duration 'soon'",
                "coordis signal");
        cli.assertUsageError(cli.run("signal", "--latch", "0", "ch", "x"), "--latch must be at least 1ms, was 0ms",
                "coordis signal");
        cli.assertUsageError(cli.run("signal", "--latch", "721h", "ch", "x"), "--latch must be at most 30d, was 721h",
                "coordis signal");
    }

    @Test
    void oneAndLatchExcludeEachOther() {
        cli.assertUsageError(cli.run("signal", "--one", "--latch", "5s", "ch", "x"),
                "--one and --latch exclude each other", "coordis signal");
    }

    @Test
    void signalsRunOnOneRedis() {
        cli.assertUsageError(cli.run("signal", "-u", "redis://a:1", "-u", "redis://b:2", "-u", "redis://c:3", "ch",
                "x"), "got 3 Redis URLs [redis://a:1, redis://b:2, redis://c:3], but 'signal' runs on one Redis",
                "coordis signal");
        cli.assertUsageError(cli.run(Map.of("COORDIS_URL", "redis://a:1,redis://b:2,redis://c:3"), "signal", "ch", "x"),
                "(from $COORDIS_URL), but 'signal' runs on one Redis: give one --url", "coordis signal");
    }

    @Test
    void malformedUrlIsAUsageErrorBeforeStandardInputIsRead() {
        cli.assertUsageError(cli.run("signal", "-u", "localhost:6379", "ch"), "not a Redis URL", "coordis signal");
    }

    @Test
    void payloadIsAllOfStandardInputWithoutOneTrailingNewline() {
        assertThat(payload("hello\n")).isEqualTo("hello");
        assertThat(payload("hello\r\n")).isEqualTo("hello");
        assertThat(payload("two\nlines\n\n")).isEqualTo("two\nlines\n");
        assertThat(payload("no newline")).isEqualTo("no newline");
        assertThat(payload("")).isEmpty();
        assertThat(payload("grüße ✓\n")).isEqualTo("grüße ✓");
    }

    @Test
    void helpShowsTheSynopsisAndOptions() {
        assertThat(cli.run("signal", "--help")).isZero();
        assertThat(cli.out()).contains("signal [--one | --latch D] CHANNEL [DATA | -]", "standard input", "--one",
                "--latch", "--unicast", "wait --latched");
    }
}
