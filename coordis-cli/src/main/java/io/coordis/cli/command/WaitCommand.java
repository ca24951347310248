package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.support.WaitingOptions;
import io.coordis.signal.Gathering;
import io.coordis.signal.Signal;
import io.coordis.signal.Signals;
import io.coordis.signal.Waiter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code coordis wait CHANNEL...}: subscribes, then blocks until a signal arrives and prints its payload;
 * exits 1 when {@code --timeout} passes first. Only payloads go to stdout, so
 * {@code x=$(coordis wait job:42:done)} captures the payload.
 */
@Command(name = "wait", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Wait for a signal on CHANNEL and print its payload.",
                "With several channels: the first signal on any of them (--any, the default) or one on each "
                        + "(--all). With several channels, or --pattern, each line is CHANNEL<TAB>PAYLOAD.",
                "Signals are plain pub/sub: 'redis-cli PUBLISH CHANNEL DATA' wakes it; one sent before this "
                        + "command subscribed is lost (see --latched)."},
        customSynopsis = {"coordis [-u URL] wait [--any | --all] [--timeout D] [--replica URL]... [-q] CHANNEL...",
                "coordis [-u URL] wait (--pattern | --latched | --unicast) [--timeout D] [--replica URL]... [-q] CHANNEL"},
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h; --timeout 0 only checks (with --latched: is it signalled?).",
                "Exit status: 0 signalled; 1 no signal within --timeout; 64 usage; 69 Redis unavailable; "
                        + "77 credentials refused; 130 interrupted (Ctrl-C)."})
public final class WaitCommand implements Callable<Integer> {
    /** Waiting on an {@link io.coordis.signal.Event} does not use its TTL, but the library asks for one. */
    private static final Duration WAITING_TTL = Duration.ofMillis(1);
    /** "Forever": the waiters saturate this to their longest wait. */
    private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

    @Parameters(arity = "1..*", paramLabel = "CHANNEL", description = "The channel(s) to wait on.")
    List<String> channels = new ArrayList<>();

    @Option(names = "--any", description = "Return the first signal on any of the channels (the default).")
    boolean any;

    @Option(names = "--all", description = "Wait until each channel has delivered a signal; print one line per "
            + "channel, in the order given.")
    boolean all;

    @Option(names = "--pattern", description = "CHANNEL is a glob pattern (PSUBSCRIBE), e.g. 'jobs:*:done'.")
    boolean pattern;

    @Option(names = "--latched", description = "Wait on the latched event CHANNEL (see 'signal --latch'): return "
            + "at once if it was signalled within its TTL, else wait for the next signal.")
    boolean latched;

    @Option(names = "--unicast", description = "Listen on CHANNEL followed by a unique id, so that 'signal --one "
            + "CHANNEL' reaches exactly one of several such waiters.")
    boolean unicast;

    @Option(names = "--timeout", paramLabel = "D",
            description = "Give up after D and exit 1. Default: wait as long as it takes.")
    Duration timeout;

    @Option(names = "--replica", paramLabel = "URL",
            description = "Listen on this replica of the master too (repeatable), so the signal is still heard "
                    + "when the master or the link to it fails; each signal is printed once.")
    List<String> replicas = new ArrayList<>();

    @Mixin
    WaitingOptions waiting = new WaitingOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public WaitCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        List<String> names = checkArguments();
        String url = waiting.urls().one();
        try (Coordis coordis = Connections.open(url, replicaUrls(), spec)) {
            return all ? gather(coordis.signals(), names) : awaitOne(coordis.signals(), names);
        }
    }

    private int awaitOne(Signals signals, List<String> names) throws InterruptedException {
        try (Waiter waiter = subscribe(signals, names)) {
            String what = describe(waiter, names);
            progress(timeout == null ? "waiting for a signal on " + what
                    : "waiting up to " + DurationText.format(timeout) + " for a signal on " + what);
            Optional<Signal> signal = waiter.await(timeout == null ? FOREVER : timeout);
            if (signal.isEmpty()) {
                progress("no signal on " + what + " within " + DurationText.format(timeout));
                return ExitCodes.NO_SIGNAL;
            }
            terminal.output(line(signal.get(), pattern || names.size() > 1));
            return ExitCodes.OK;
        }
    }

    private Waiter subscribe(Signals signals, List<String> names) throws InterruptedException {
        if (pattern) {
            return signals.waiterForPattern(names.get(0));
        }
        if (latched) {
            return signals.event(names.get(0), WAITING_TTL).waiter();
        }
        if (unicast) {
            return signals.unicastWaiter(names.get(0));
        }
        return signals.waiterForAny(names);
    }

    private String describe(Waiter waiter, List<String> names) {
        if (pattern) {
            return "channels matching '" + names.get(0) + "'";
        }
        if (latched) {
            return "event '" + names.get(0) + "'";
        }
        if (unicast) {
            return "'" + names.get(0) + "' (unicast, as '" + waiter.channels().get(0) + "')";
        }
        return names.size() == 1 ? quoted(names) : "any of " + quoted(names);
    }

    private int gather(Signals signals, List<String> names) throws InterruptedException {
        try (Gathering gathering = signals.gathering(names)) {
            progress((timeout == null ? "waiting" : "waiting up to " + DurationText.format(timeout))
                    + " for a signal on each of " + quoted(names));
            Optional<Map<String, Signal>> received = gathering.await(timeout == null ? FOREVER : timeout);
            if (received.isEmpty()) {
                Map<String, Signal> got = gathering.received();
                List<String> missing = names.stream().filter(c -> !got.containsKey(c)).toList();
                progress("no signal on " + quoted(missing) + " within " + DurationText.format(timeout)
                        + (got.isEmpty() ? "" : " (got " + quoted(List.copyOf(got.keySet())) + ")"));
                return ExitCodes.NO_SIGNAL;
            }
            for (Signal signal : received.get().values()) {
                terminal.output(line(signal, names.size() > 1));
            }
            return ExitCodes.OK;
        }
    }

    /** {@code CHANNEL<TAB>PAYLOAD}, or the payload alone when the arguments already name the channel. */
    static String line(Signal signal, boolean withChannel) {
        return withChannel ? signal.channel() + "\t" + signal.data() : signal.data();
    }

    /**
     * Checks what picocli cannot, before anything touches Redis.
     *
     * @return the channels, each once, in the order given
     */
    private List<String> checkArguments() {
        if (channels.stream().anyMatch(String::isEmpty)) {
            throw usage("channel must not be empty");
        }
        if (any && all) {
            throw usage("--any and --all exclude each other");
        }
        List<String> modes = new ArrayList<>();
        if (pattern) {
            modes.add("--pattern");
        }
        if (latched) {
            modes.add("--latched");
        }
        if (unicast) {
            modes.add("--unicast");
        }
        if (modes.size() > 1) {
            throw usage(String.join(" and ", modes) + " exclude each other");
        }
        List<String> names = List.copyOf(new LinkedHashSet<>(channels));
        if (!modes.isEmpty() && all) {
            throw usage(modes.get(0) + " and --all exclude each other");
        }
        if (!modes.isEmpty() && names.size() > 1) {
            throw usage(modes.get(0) + " takes one " + (pattern ? "pattern" : "channel") + ", got " + names.size()
                    + ": " + quoted(names) + (pattern ? " (write one glob, e.g. 'jobs:*')" : ""));
        }
        for (String replica : replicas) {
            if (replica.isBlank()) {
                throw usage("--replica must not be empty");
            }
        }
        return names;
    }

    /** The {@code --replica} URLs; each may hold a comma-separated list, like {@code --url}. */
    List<String> replicaUrls() {
        List<String> split = new ArrayList<>();
        for (String value : replicas) {
            split.addAll(GlobalOptions.split(value));
        }
        return split;
    }

    private static String quoted(List<String> names) {
        return names.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", "));
    }

    private void progress(String message) {
        if (!waiting.quiet()) {
            terminal.say(message);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
