package io.coordis.cli.run;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The contract {@code lock} and {@code semaphore} share, like {@code flock(1)}: acquire the claim (or give up with
 * the conflict exit status), then run CMD under it with {@link Supervisor}, which stops CMD when the claim is lost
 * (exit 75); {@link Teardown} releases it at the end or on a signal. Each command says how it acquires.
 */
public final class HeldRun {
    /**
     * Acquires the claim on an open client within {@code left} of the wait ({@code null}: as long as it takes);
     * empty when it was not acquired in time.
     */
    @FunctionalInterface
    public interface Acquisition {
        Optional<Acquired> acquire(Coordis coordis, Duration left) throws InterruptedException;
    }

    /** A claim acquired, and what to say about it ({@code acquired 'orders' (token 7)}). */
    public record Acquired(Claim claim, String message) {
    }

    private HeldRun() {
    }

    /**
     * Connects to {@code nodes}, acquires, and runs {@code command} while the claim is held; answers the exit status.
     * The wait of {@code held} ({@code null}: as long as it takes; zero for {@code --nonblock}) covers connecting too:
     * Redis down or restarting is waited out within it (see {@link Connections#connectWithin} for no wait given). The
     * acquisition's message is said once the claim is held, unless {@code --quiet}.
     */
    public static int run(CommandSpec spec, List<String> nodes, HeldRunOptions held, Terminal terminal,
                          List<String> command, Acquisition acquisition) throws InterruptedException {
        Duration wait = held.budget();
        int conflictExitCode = held.conflictExitCode();
        Budget budget = Budget.of(wait);
        // Closed in reverse order: the teardown stops the command and releases the claim while connected.
        try (Coordis coordis = Connections.open(nodes, spec, Connections.connectWithin(wait));
             Teardown teardown = new Teardown(held.grace(), terminal).installHook()) {
            Optional<Acquired> acquired = acquisition.acquire(coordis, budget.left());
            if (acquired.isEmpty()) {
                return conflictExitCode;
            }
            Claim claim = acquired.get().claim();
            if (!teardown.adopt(claim)) {
                return ExitCodes.SOFTWARE; // shutting down; the JVM's exit status wins
            }
            if (!held.quiet()) {
                terminal.say(acquired.get().message());
            }
            return new Supervisor(claim, command, teardown, terminal).run();
        }
    }

    /** One try at Redis. */
    @FunctionalInterface
    public interface Try<T> {
        Optional<T> get() throws InterruptedException;
    }

    /**
     * The first try of a claim: its result; empty also when Redis was transiently unavailable and the command was
     * given a wait ({@code -w}), which the wait that follows rides out. Without one ({@code mayWait} false: {@code -n},
     * or no {@code -w}), any failure is thrown: as when connecting, a first try that finds Redis (or a Redlock
     * majority) unavailable is more often a mistake than an outage, and waiting forever would hide it.
     */
    public static <T> Optional<T> firstTry(boolean mayWait, Try<T> attempt) throws InterruptedException {
        try {
            return attempt.get();
        } catch (CoordisException e) {
            if (!mayWait || !e.isTransient()) {
                throw e;
            }
            return Optional.empty();
        }
    }

    /**
     * Checks what picocli cannot, before anything touches Redis: a command after {@code --} and nothing else there,
     * {@code --wait} without {@code --nonblock}, the conflict status and the grace.
     *
     * @param example how the command line starts, for the messages: {@code coordis lock orders}
     */
    public static void check(CommandSpec spec, String example, List<String> command, HeldRunOptions held) {
        boolean nonblock = held.nonblock();
        Duration wait = held.maxWait();
        int conflictExitCode = held.conflictExitCode();
        if (command.isEmpty()) {
            throw usage(spec, "missing command: give the command to run after '--', e.g. " + example + " -- make deploy");
        }
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int separator = args.indexOf("--");
        if (separator < 0 || args.size() - separator - 1 != command.size()) {
            throw usage(spec, "put NAME before '--' and the command after it, e.g. " + example + " -- "
                    + String.join(" ", command));
        }
        if (nonblock && wait != null) {
            throw usage(spec, "--wait and --nonblock exclude each other");
        }
        if (conflictExitCode < 0 || conflictExitCode > 255) {
            throw usage(spec, "--conflict-exit-code must be in 0..255, was " + conflictExitCode);
        }
        if (held.grace().isNegative()) {
            throw usage(spec, "--grace must not be negative");
        }
    }

    public static ParameterException usage(CommandSpec spec, String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
