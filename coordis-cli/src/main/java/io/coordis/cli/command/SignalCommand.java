package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.UrlOption;
import io.coordis.cli.support.VersionProvider;
import io.coordis.signal.Event;
import io.coordis.signal.Signals;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code coordis signal CHANNEL [DATA|-]}: publishes DATA (or standard input) on CHANNEL and prints how
 * many receivers got it. {@code --one} reaches one {@code wait --unicast} waiter; {@code --latch D}
 * records the signal for D, so that a {@code wait --latched} that starts later still sees it.
 */
@Command(name = "signal", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Publish DATA on CHANNEL (plain PUBLISH, so any subscriber hears it) and print how many "
                + "receivers got it.",
                "Without DATA, or with -, the payload is standard input (one trailing newline removed)."},
        customSynopsis = "coordis [-u URL] signal [--one | --latch D] CHANNEL [DATA | -]",
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "Exit status: 0 signalled (even to nobody: the number printed says so); 64 usage; "
                        + "69 Redis unavailable; 77 credentials refused."})
public final class SignalCommand implements Callable<Integer> {
    static final String STDIN = "-";

    @Parameters(index = "0", paramLabel = "CHANNEL", description = "The channel to publish on.")
    String channel;

    @Parameters(index = "1", arity = "0..1", paramLabel = "DATA",
            description = "The payload; - or absent: read it from standard input.")
    String data;

    @Option(names = "--one",
            description = "Unicast: deliver to one of the waiters started with 'wait --unicast CHANNEL', chosen "
                    + "at random. Prints 0 when none waits.")
    boolean one;

    @Option(names = "--latch", paramLabel = "D",
            description = "Latch: keep the signal recorded for D (key {CHANNEL}:event), so that 'wait --latched "
                    + "CHANNEL' started within D still returns it at once. Replaces an earlier latched signal.")
    Duration latch;

    @Mixin
    UrlOption urls = new UrlOption();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public SignalCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() {
        checkArguments();
        // Connect before reading standard input: a bad URL or an unreachable Redis is reported at once,
        // not after the producer on the other end of a pipe has finished.
        try (Coordis coordis = Connections.open(urls.one(), spec)) {
            String payload = data == null || data.equals(STDIN) ? payload(terminal.in()) : data;
            terminal.output(Long.toString(send(coordis.signals(), payload)));
        }
        return ExitCodes.OK;
    }

    private long send(Signals signals, String payload) {
        if (one) {
            return signals.signalOne(channel, payload);
        }
        if (latch != null) {
            return signals.event(channel, latch).signal(payload);
        }
        return signals.signal(channel, payload);
    }

    /** Checks what picocli cannot, before anything touches Redis or standard input. */
    private void checkArguments() {
        if (channel.isEmpty()) {
            throw usage("channel must not be empty");
        }
        if (one && latch != null) {
            throw usage("--one and --latch exclude each other: a latched signal is for every waiter");
        }
        if (latch != null && latch.compareTo(Duration.ofMillis(1)) < 0) {
            throw usage("--latch must be at least 1ms, was " + DurationText.format(latch));
        }
        if (latch != null && latch.compareTo(Event.MAX_TTL) > 0) {
            throw usage("--latch must be at most " + DurationText.format(Event.MAX_TTL) + ", was "
                    + DurationText.format(latch));
        }
    }

    /** All of {@code in} as UTF-8, without one trailing line ending ({@code \n} or {@code \r\n}). */
    static String payload(InputStream in) {
        String text;
        try {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new CommandFailure(ExitCodes.SOFTWARE, "cannot read the payload from standard input: "
                    + e.getMessage(), e);
        }
        if (text.endsWith("\r\n")) {
            return text.substring(0, text.length() - 2);
        }
        return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
