package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.run.Claim;
import io.coordis.cli.run.GraceOption;
import io.coordis.cli.run.HeldRun;
import io.coordis.cli.run.Supervisor;
import io.coordis.cli.run.Teardown;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.support.WaitingOptions;
import io.coordis.ratelimit.Decision;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;

/**
 * {@code coordis rate NAME --limit 10/1s -- CMD...}: runs CMD once a permit of the rate limiter NAME is granted (the
 * exit status is CMD's), or exits 1 (or {@code -E}) without running it. A wait reserves the permit at its due time
 * and sleeps until then. Not thread-safe, like every command object.
 */
@Command(name = "rate", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Run CMD once the rate limiter NAME grants a permit: at most --limit across every process "
                + "that names it, counted on Redis's clock.",
                "CMD sees COORDIS_RATE_NAME in its environment."},
        customSynopsis = "coordis [-u URL] rate --limit N/PERIOD [--burst N] [-w D | -n] [-E N] [--grace D] [-q] NAME "
                + "-- CMD [ARG...]",
        footer = {"", "Limits: 10/1s, 100/1m, 5/250ms, 3/h. Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "Without -w or -n, waits until a permit is due; a wait reserves the permit at its due time and "
                        + "sleeps until then, or gives up at once when none is due within it.",
                "Exit status: CMD's; 1 (or -E) when no permit was granted; 64 usage; 65 the name holds another type "
                        + "of key; 69 Redis unavailable; 77 credentials refused; 126/127 CMD cannot be run / not "
                        + "found."})
public final class RateCommand implements Callable<Integer> {
    /** The variable a command run under a rate limiter sees: the limiter's name. */
    public static final String RATE_NAME_ENV = "COORDIS_RATE_NAME";
    /** The wait of a command given neither {@code -w} nor {@code -n}: longer than any limit's due time. */
    private static final Duration AS_LONG_AS_IT_TAKES = Duration.ofDays(400 * 366L);

    @Parameters(index = "0", paramLabel = "NAME", description = "The rate limiter's name.")
    String name;

    @Parameters(index = "1..*", paramLabel = "CMD", description = "The command to run and its arguments, after --.")
    List<String> command = new ArrayList<>();

    @Option(names = "--limit", paramLabel = "N/PERIOD", required = true,
            description = "The rate: N permits per PERIOD, spread evenly, e.g. 10/1s or 100/1m.")
    String limit;

    @Option(names = "--burst", paramLabel = "N",
            description = "How many permits an idle limiter grants at once. Default: N of --limit.")
    Integer burst;

    @Option(names = {"-w", "--wait"}, paramLabel = "D",
            description = "Give up unless a permit is due within this long. Default: wait until one is due.")
    Duration wait;

    @Option(names = {"-n", "--nonblock"}, description = "Do not wait: give up at once unless a permit is due now.")
    boolean nonblock;

    @Option(names = {"-E", "--conflict-exit-code"}, paramLabel = "N", defaultValue = "1",
            description = "Exit status when no permit is granted (0-255). Default: ${DEFAULT-VALUE}.")
    int conflictExitCode;

    @Mixin
    GraceOption grace = new GraceOption();

    @Mixin
    WaitingOptions waiting = new WaitingOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public RateCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        RateLimit rate = checkArguments();
        List<String> nodes = waiting.urls().all();
        if (nodes.size() > 1) {
            throw HeldRun.usage(spec, "a rate limiter lives on one Redis: give one URL, not " + nodes.size());
        }
        Duration budget = nonblock ? Duration.ZERO : wait == null ? AS_LONG_AS_IT_TAKES : wait;
        try (Coordis coordis = Connections.open(nodes, spec, Connections.connectWithin(nonblock ? Duration.ZERO : wait));
             Teardown teardown = new Teardown(grace.duration(), terminal).installHook()) {
            RateLimiter limiter = coordis.rateLimiter(name, rate);
            if (!granted(limiter, budget)) {
                return conflictExitCode;
            }
            Claim permit = new Permit(name);
            if (!teardown.adopt(permit)) {
                return ExitCodes.SOFTWARE; // shutting down; the JVM's exit status wins
            }
            return new Supervisor(permit, command, teardown, terminal).run();
        }
    }

    private RateLimit checkArguments() {
        if (name.isBlank()) {
            throw HeldRun.usage(spec, "rate limiter name must not be blank: name what is limited, e.g. api:search");
        }
        RateLimit rate;
        try {
            rate = RateLimit.parse(limit);
            rate = burst == null ? rate : rate.withBurst(burst);
        } catch (IllegalArgumentException e) {
            throw HeldRun.usage(spec, "invalid --limit or --burst: " + e.getMessage());
        }
        if (command.isEmpty()) {
            throw usage("missing command: give the command to run after '--', e.g. coordis rate " + name
                    + " --limit " + limit + " -- ./send-report.sh");
        }
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int separator = args.indexOf("--");
        if (separator < 0 || args.size() - separator - 1 != command.size()) {
            throw usage("put NAME before '--' and the command after it, e.g. coordis rate " + name + " --limit "
                    + limit + " -- " + String.join(" ", command));
        }
        if (nonblock && wait != null) {
            throw usage("--wait and --nonblock exclude each other");
        }
        if (wait != null && wait.isNegative()) {
            throw usage("--wait must not be negative");
        }
        if (conflictExitCode < 0 || conflictExitCode > 255) {
            throw usage("--conflict-exit-code must be in 0..255, was " + conflictExitCode);
        }
        if (grace.duration().isNegative()) {
            throw usage("--grace must not be negative");
        }
        return rate;
    }

    /** Tries once; when no permit is due now, says so and waits (reserving it) as the options say. */
    private boolean granted(RateLimiter limiter, Duration budget) throws InterruptedException {
        Decision now = limiter.tryAcquire();
        if (now.granted()) {
            return true;
        }
        String due = "no permit of rate limiter '" + name + "' is due for " + DurationText.format(now.retryAfter());
        if (budget.isZero()) {
            progress(due + "; not waiting (--nonblock)");
            return false;
        }
        if (now.retryAfter().compareTo(budget) > 0) {
            progress(due + ", longer than --wait " + DurationText.format(budget) + "; not waiting");
            return false;
        }
        progress(due + "; waiting");
        if (limiter.acquire(budget)) {
            return true;
        }
        progress("no permit of rate limiter '" + name + "' came due within " + DurationText.format(budget));
        return false;
    }

    private ParameterException usage(String message) {
        return HeldRun.usage(spec, message);
    }

    private void progress(String message) {
        if (!waiting.quiet()) {
            terminal.say(message);
        }
    }

    /** A granted permit as the supervisor sees it: spent once granted, so never lost and nothing to give back. */
    private record Permit(String name) implements Claim {
        @Override
        public String what() {
            return "a permit of rate limiter '" + name + "'";
        }

        @Override
        public String describe() {
            return what();
        }

        @Override
        public Map<String, String> environment() {
            return Map.of(RATE_NAME_ENV, name);
        }

        @Override
        public CompletableFuture<?> lost() {
            return new CompletableFuture<>();
        }

        @Override
        public boolean isHeld() {
            return true;
        }

        @Override
        public void release() {
            // a permit is spent when granted
        }
    }
}
