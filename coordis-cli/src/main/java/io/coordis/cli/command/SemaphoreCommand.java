package io.coordis.cli.command;

import io.coordis.DurationText;
import io.coordis.cli.run.Claim;
import io.coordis.cli.run.HeldRun;
import io.coordis.cli.run.HeldRunOptions;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Permit;
import io.coordis.lock.Semaphore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis semaphore NAME --permits N -- CMD...}: runs CMD while holding one permit of the semaphore NAME, with
 * {@code coordis lock}'s contract: the permit renews itself while CMD runs; if it is lost anyway, CMD is stopped
 * and the exit status is 75; otherwise the exit status is CMD's.
 */
@Command(name = "semaphore", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Run CMD while holding one of the N permits of the semaphore NAME; the permit renews itself "
                + "while CMD runs.",
                "CMD sees COORDIS_SEMAPHORE_NAME and COORDIS_PERMIT_TOKEN (the fencing number) in its environment."},
        customSynopsis = "coordis [-u URL] semaphore --permits N [--ttl D] [-w D | -n] [-E N] [--grace D] [-q] NAME "
                + "-- CMD [ARG...]",
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "The permit count is kept in Redis: --permits sets it when the semaphore has none yet; otherwise the "
                        + "stored count applies. Waiters are served in arrival order, across processes.",
                "Exit status: CMD's; 1 (or -E) when no permit was acquired; 75 when the permit was lost and CMD was "
                        + "stopped; 64 usage; 65 the name holds another type of key; 69 Redis unavailable; "
                        + "77 credentials refused; 126/127 CMD cannot be run / not found."})
public final class SemaphoreCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "NAME", description = "The semaphore's name (the Redis key of its holders).")
    String name;

    @Parameters(index = "1..*", paramLabel = "CMD", description = "The command to run and its arguments, after --.")
    List<String> command = new ArrayList<>();

    @Option(names = "--permits", paramLabel = "N", required = true,
            description = "How many permits the semaphore has (at least 1), when none is stored yet.")
    int permits;

    @Mixin
    HeldRunOptions held = new HeldRunOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public SemaphoreCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code semaphore} command, its held-run options speaking of a permit where {@code lock}'s speak of the lock. */
    public static CommandLine create(Terminal terminal) {
        return Descriptions.of(new SemaphoreCommand(terminal),
                "ttl", "How long the permit outlives this process if it dies without releasing; "
                        + "renewed every TTL/3. At least 100ms. Default: ${DEFAULT-VALUE}.",
                "wait", "Give up after waiting this long for a permit. Default: wait as long as it takes.",
                "nonblock", "Do not wait: give up at once if no permit is free.",
                "conflict-exit-code", "Exit status when no permit is acquired (0-255). Default: ${DEFAULT-VALUE}.");
    }

    @Override
    public Integer call() throws InterruptedException {
        LockOptions options = checkArguments();
        List<String> nodes = held.urls().all();
        if (nodes.size() > 1) {
            throw HeldRun.usage(spec, "a semaphore lives on one Redis: give one URL, not " + nodes.size());
        }
        return HeldRun.run(spec, nodes, held, terminal,
                command, (coordis, left) -> acquire(coordis.semaphore(name, permits, options), left).map(permit -> new HeldRun.Acquired(
                        Claim.of(permit), "acquired a permit of '" + name + "' (token " + permit.fencingToken() + ")")));
    }

    private LockOptions checkArguments() {
        if (name.isBlank()) {
            throw HeldRun.usage(spec, "semaphore name must not be blank: name the semaphore, e.g. pool:db");
        }
        if (permits < 1) {
            throw HeldRun.usage(spec, "--permits must be at least 1, was " + permits);
        }
        HeldRun.check(spec, "coordis semaphore " + name + " --permits " + permits, command, held);
        try {
            return LockOptions.defaults().withTtl(held.ttl());
        } catch (IllegalArgumentException e) {
            throw HeldRun.usage(spec, "invalid --ttl: " + e.getMessage());
        }
    }

    /** Tries once; if no permit is free, says so and waits (or not) as the options say. */
    private Optional<Permit> acquire(Semaphore semaphore, Duration left) throws InterruptedException {
        Optional<Permit> permit = HeldRun.firstTry(held.maxWait() != null, semaphore::tryAcquire);
        if (permit.isPresent()) {
            return permit;
        }
        String busy = "no permit of semaphore '" + name + "' is free"
                + (held.quiet() ? "" : HeldRun.firstTry(true, () -> Optional.of(" (" + semaphore.permits() + " permits)"))
                .orElse(""));
        if (held.nonblock()) {
            progress(busy + "; not waiting (--nonblock)");
            return Optional.empty();
        }
        if (held.maxWait() == null) {
            progress(busy + "; waiting");
            return Optional.of(semaphore.acquire());
        }
        progress(busy + "; waiting up to " + DurationText.format(held.maxWait()));
        permit = semaphore.acquire(left);
        if (permit.isEmpty()) {
            progress("gave up waiting for a permit of '" + name + "' after " + DurationText.format(held.maxWait()));
        }
        return permit;
    }

    private void progress(String message) {
        if (!held.quiet()) {
            terminal.say(message);
        }
    }
}
