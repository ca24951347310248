package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.support.WaitingOptions;
import io.coordis.latch.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code coordis latch NAME count-down|await}: counts the count-down latch NAME down once and prints the count left,
 * or waits until it is open (exit 0) or {@code --wait} passed (exit 1). Both create the latch with {@code --count}
 * when none is stored.
 */
@Command(name = "latch", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Count the count-down latch NAME down once and print the count left (count-down), or wait "
                + "until it is open (await).",
                "The first use of a name stores the latch with --count; a later --count does not reset it. The latch "
                        + "stays open once its count reached 0, and its key expires --expire after it opened or "
                        + "last changed."},
        customSynopsis = {"coordis [-u URL] latch [--count N] [--expire D] NAME count-down",
                "coordis [-u URL] latch [--count N] [--expire D] [-w D] [-q] NAME await"},
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h; -w 0 only checks whether it is open.",
                "Exit status: 0 counted down, or open; 1 not open within -w (await); 64 usage; 65 the key holds "
                        + "something else; 69 Redis unavailable; 77 credentials refused; 130 interrupted (Ctrl-C)."})
public final class LatchCommand implements Callable<Integer> {
    /** "Forever": the wait saturates this to its longest. */
    private static final Duration FOREVER = Duration.ofNanos(Long.MAX_VALUE);

    /** What the command does to the latch. */
    enum Action {
        COUNT_DOWN("count-down"), AWAIT("await");

        final String word;

        Action(String word) {
            this.word = word;
        }

        static Action of(String word) {
            for (Action a : values()) {
                if (a.word.equals(word)) {
                    return a;
                }
            }
            throw new IllegalArgumentException("unknown action '" + word + "': use count-down or await");
        }
    }

    @Parameters(index = "0", paramLabel = "NAME", description = "The latch's name (its key is {NAME}:latch).")
    String name;

    @Parameters(index = "1", paramLabel = "ACTION", completionCandidates = Actions.class,
            description = "count-down: count down once and print the count left; await: wait until open.")
    String action;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1",
            description = "The count the latch starts with when none is stored (at least 1). Give every use of "
                    + "a latch the same count. Default: ${DEFAULT-VALUE}.")
    long count;

    @Option(names = "--expire", paramLabel = "D", defaultValue = "1h",
            description = "How long the key stays after the latch opened or last changed (1ms to 30 days). "
                    + "Default: ${DEFAULT-VALUE}.")
    Duration expire;

    @Option(names = {"-w", "--wait"}, paramLabel = "D",
            description = "await: give up after D and exit 1. Default: wait as long as it takes.")
    Duration wait;

    @Mixin
    WaitingOptions waiting = new WaitingOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public LatchCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The words ACTION takes, for completion. */
    static final class Actions implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of(Action.COUNT_DOWN.word, Action.AWAIT.word).iterator();
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        Action what = checkArguments();
        String url = waiting.urls().one();
        if (what == Action.COUNT_DOWN) {
            try (Coordis coordis = Connections.open(url, spec)) {
                terminal.output(Long.toString(latch(coordis).countDown()));
                return ExitCodes.OK;
            }
        }
        try (Coordis coordis = Connections.open(List.of(url), spec, Connections.connectWithin(wait))) {
            CountDownLatch latch = latch(coordis);
            progress(wait == null ? "waiting for latch '" + name + "' to open"
                    : "waiting up to " + DurationText.format(wait) + " for latch '" + name + "' to open");
            if (!latch.await(wait == null ? FOREVER : wait)) {
                progress("latch '" + name + "' is not open after " + DurationText.format(wait) + " (count "
                        + latch.getCount() + ")");
                return ExitCodes.NOT_OPEN;
            }
            progress("latch '" + name + "' is open");
            return ExitCodes.OK;
        }
    }

    private CountDownLatch latch(Coordis coordis) {
        try {
            return coordis.countDownLatch(name, count, expire);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /** Checks what picocli cannot, before anything touches Redis. */
    private Action checkArguments() {
        Action what;
        try {
            what = Action.of(action);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        if (name.isBlank()) {
            throw usage("latch name must not be blank: name the latch, e.g. batch:42");
        }
        if (count < 1) {
            throw usage("--count must be at least 1, was " + count);
        }
        if (count > CountDownLatch.MAX_COUNT) {
            throw usage("--count must be at most " + CountDownLatch.MAX_COUNT + ", was " + count);
        }
        if (expire.compareTo(Duration.ofMillis(1)) < 0 || expire.compareTo(CountDownLatch.MAX_EXPIRY) > 0) {
            throw usage("--expire must be between 1ms and " + DurationText.format(CountDownLatch.MAX_EXPIRY)
                    + ", was " + DurationText.format(expire));
        }
        if (wait != null && wait.isNegative()) {
            throw usage("-w must not be negative, was " + DurationText.format(wait));
        }
        if (wait != null && what == Action.COUNT_DOWN) {
            throw usage("-w is for await: count-down does not wait");
        }
        return what;
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
