package io.coordis.cli.command;

import io.coordis.cli.Commands;
import io.coordis.cli.InProcess;
import io.coordis.cli.support.Terminal;
import io.coordis.signal.Signal;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParseResult;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis wait}: parsing, usage errors and output lines; nothing here reaches Redis. */
class WaitCommandTest {
    private final InProcess cli = new InProcess();

    private static WaitCommand parse(String... args) {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        ParseResult result = Commands.commandLine(new Terminal(InputStream.nullInputStream(), sink, sink, Map.of()))
                .parseArgs(args);
        return (WaitCommand) result.subcommand().commandSpec().userObject();
    }

    @Test
    void defaultsAndOptions() {
        WaitCommand wait = parse("wait", "a", "b");
        assertThat(wait.channels).containsExactly("a", "b");
        assertThat(wait.timeout).as("wait as long as it takes").isNull();
        assertThat(wait.any || wait.all || wait.pattern || wait.latched || wait.unicast || wait.waiting.quiet()).isFalse();
        assertThat(wait.replicas).isEmpty();

        wait = parse("wait", "--all", "--timeout", "1.5s", "-q", "--replica", "redis://r1:1", "--replica",
                "redis://r2:2,redis://r3:3", "a", "b");
        assertThat(wait.all).isTrue();
        assertThat(wait.waiting.quiet()).isTrue();
        assertThat(wait.timeout).isEqualTo(Duration.ofMillis(1500));
        assertThat(wait.replicaUrls()).containsExactly("redis://r1:1", "redis://r2:2", "redis://r3:3");
    }

    @Test
    void payloadAloneForOneChannelElseChannelTabPayload() {
        Signal signal = new Signal("jobs:7", "done\tok");
        assertThat(WaitCommand.line(signal, false)).isEqualTo("done\tok");
        assertThat(WaitCommand.line(signal, true)).isEqualTo("jobs:7\tdone\tok");
    }

    @Test
    void missingChannelIsAUsageError() {
        cli.assertUsageError(cli.run("wait"), "Missing required parameter: 'CHANNEL'", "coordis wait");
        cli.assertUsageError(cli.run("wait", "--timeout", "5s"), "Missing required parameter", "coordis wait");
    }

    @Test
    void emptyChannelIsAUsageError() {
        cli.assertUsageError(cli.run("wait", "a", ""), "channel must not be empty", "coordis wait");
    }

    @Test
    void badTimeoutIsAUsageError() {
        cli.assertUsageError(cli.run("wait", "--timeout", "10", "ch"), "invalid duration '10': use e.g. 500ms",
                "coordis wait");
        cli.assertUsageError(cli.run("wait", "--timeout", "-1s", "ch"), "invalid duration '-1s'", "coordis wait");
    }

    @Test
    void anyAndAllExcludeEachOther() {
        cli.assertUsageError(cli.run("wait", "--any", "--all", "a", "b"), "--any and --all exclude each other",
                "coordis wait");
    }

    @Test
    void patternTakesOnePattern() {
        cli.assertUsageError(cli.run("wait", "--pattern", "jobs:*", "logs:*"),
                "--pattern takes one pattern, got 2: 'jobs:*', 'logs:*'", "coordis wait");
    }

    @Test
    void latchedAndUnicastTakeOneChannel() {
        cli.assertUsageError(cli.run("wait", "--latched", "a", "b"), "--latched takes one channel, got 2",
                "coordis wait");
        cli.assertUsageError(cli.run("wait", "--unicast", "a", "b"), "--unicast takes one channel, got 2",
                "coordis wait");
    }

    @Test
    void modesExcludeEachOtherAndAll() {
        cli.assertUsageError(cli.run("wait", "--pattern", "--latched", "a*"), "--pattern and --latched exclude each other",
                "coordis wait");
        cli.assertUsageError(cli.run("wait", "--unicast", "--all", "a"), "--unicast and --all exclude each other",
                "coordis wait");
    }

    @Test
    void waitRunsOnOneRedis() {
        cli.assertUsageError(cli.run("-u", "redis://a:1,redis://b:2,redis://c:3", "wait", "ch"),
                "but 'wait' runs on one Redis: give one --url", "coordis wait");
    }

    @Test
    void blankReplicaIsAUsageError() {
        cli.assertUsageError(cli.run("wait", "--replica", " ", "ch"), "--replica must not be empty", "coordis wait");
    }

    @Test
    void helpShowsTheSynopsisOptionsAndExitStatuses() {
        assertThat(cli.run("wait", "--help")).isZero();
        assertThat(cli.out()).contains("wait [--any | --all]", "(--pattern | --latched | --unicast)", "--timeout",
                "--replica", "CHANNEL<TAB>PAYLOAD", "1 no signal within --timeout", "130");
    }
}
