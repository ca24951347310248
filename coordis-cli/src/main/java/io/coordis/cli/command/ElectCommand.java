package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.DurationText;
import io.coordis.cli.run.Budget;
import io.coordis.cli.run.Claim;
import io.coordis.cli.run.GraceOption;
import io.coordis.cli.run.HeldRun;
import io.coordis.cli.run.Supervisor;
import io.coordis.cli.run.Teardown;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.LongRunning;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.support.WaitingOptions;
import io.coordis.election.Candidacy;
import io.coordis.election.CandidacyListener;
import io.coordis.election.ElectionOptions;
import io.coordis.election.Leader;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code coordis elect NAME -- CMD...}: campaigns in the election NAME and runs CMD only while leader.
 * The leadership renews itself while CMD runs; if it is lost anyway, CMD is stopped (SIGTERM, then
 * SIGKILL after the grace period) and the exit status is 75. When CMD ends, or coordis is asked to stop,
 * the leadership is resigned so that a waiting candidate takes over at once. {@code --observe} prints
 * the leader and term whenever they change instead.
 */
@Command(name = "elect", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Run CMD only while leader of the election NAME; the leadership renews itself while CMD runs.",
                "CMD sees COORDIS_ELECTION_NAME, COORDIS_ELECTION_TERM (the term: pass it to what CMD writes, "
                        + "as a fencing token) and COORDIS_ELECTION_ID in its environment.",
                "With --observe, print 'leader=ID term=T' whenever the leader or term changes (until stopped)."},
        customSynopsis = {"coordis [-u URL] elect [--id ID] [--ttl D] [-w D] [--grace D] [-q] NAME -- CMD [ARG...]",
                "coordis [-u URL] elect --observe NAME"},
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "Exit status: CMD's; 1 not elected within --wait; 75 the leadership was lost and CMD was stopped; "
                        + "64 usage; 69 Redis unavailable; 77 credentials refused; 126/127 CMD cannot be run / not found."})
public final class ElectCommand implements Callable<Integer>, LongRunning {
    /** How long a grant that Redis has made may take to reach the candidacy's listener. */
    private static final Duration GRANT_HOP = Duration.ofSeconds(1);

    @Parameters(index = "0", paramLabel = "NAME", description = "The election's name (the Redis key).")
    String name;

    @Parameters(index = "1..*", paramLabel = "CMD", description = "The command to run while leader, after --.")
    List<String> command = new ArrayList<>();

    @Option(names = "--id", paramLabel = "ID",
            description = "This candidate's id, shown as the leader. Default: user@host:pid:random.")
    String id;

    @Option(names = "--ttl", paramLabel = "D", defaultValue = "15s",
            description = "How long the leadership outlives this process if it dies without resigning; renewed "
                    + "every TTL/3. At least 300ms. Default: ${DEFAULT-VALUE}.")
    Duration ttl;

    @Option(names = {"-w", "--wait"}, paramLabel = "D",
            description = "Give up after campaigning this long. Default: campaign as long as it takes.")
    Duration wait;

    @Mixin
    GraceOption grace = new GraceOption();

    @Option(names = "--observe", description = "Print the leader and term whenever they change; run no command.")
    boolean observe;

    @Mixin
    WaitingOptions waiting = new WaitingOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public ElectCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        ElectionOptions options = checkArguments();
        String url = waiting.urls().one();
        if (observe) {
            return observe(url, options);
        }
        Budget budget = Budget.of(wait);
        // Closed in reverse order: the teardown stops the command and resigns while connected.
        try (Coordis coordis = Connections.open(List.of(url), spec, Connections.connectWithin(wait));
             Teardown teardown = new Teardown(grace.duration(), terminal).installHook()) {
            LeaderElection election = coordis.election(name, options);
            CompletableFuture<Leadership> granted = new CompletableFuture<>();
            Candidacy candidacy = election.candidacy(new CandidacyListener() {
                @Override
                public void granted(Leadership leadership) {
                    granted.complete(leadership);
                }

                @Override
                public void failed(CoordisException failure) {
                    granted.completeExceptionally(failure);
                }
            });
            Optional<Leadership> won = Optional.empty();
            try {
                won = awaitGrant(election, granted, budget);
            } finally {
                if (won.isEmpty()) {
                    candidacy.close(); // not elected in time, interrupted or failed: nothing is left held
                }
            }
            if (won.isEmpty()) {
                return ExitCodes.NOT_ELECTED;
            }
            Claim claim = Claim.of(won.get(), candidacy);
            if (!teardown.adopt(claim)) {
                return ExitCodes.SOFTWARE; // shutting down; the JVM's exit status wins
            }
            progress("elected leader of '" + name + "' as " + election.candidateId() + " (term " + won.get().term() + ")");
            return new Supervisor(claim, command, teardown, terminal).run();
        }
    }

    /**
     * Waits for the candidacy's grant within the budget, saying so when its first try did not win. The leader is read
     * after that try, on the same connection, so the read tells whether it won: then its grant is on its way.
     */
    private Optional<Leadership> awaitGrant(LeaderElection election, CompletableFuture<Leadership> granted,
                                            Budget budget) throws InterruptedException {
        Optional<Leader> led = HeldRun.firstTry(wait != null, () -> Optional.of(election.leader())).flatMap(l -> l);
        if (granted.isDone() || led.filter(l -> l.id().equals(election.candidateId())).isPresent()) {
            Duration left = budget.left();
            return grant(granted, left == null || left.compareTo(GRANT_HOP) > 0 ? left : GRANT_HOP);
        }
        String other = waiting.quiet() ? "" : led.map(l -> "; " + describe(l)).orElse("");
        if (wait == null) {
            progress("campaigning for '" + name + "' as " + election.candidateId() + other);
            return grant(granted, null);
        }
        progress("campaigning up to " + DurationText.format(wait) + " for '" + name + "' as " + election.candidateId() + other);
        Optional<Leadership> won = grant(granted, budget.left());
        if (won.isEmpty()) {
            progress("not elected leader of '" + name + "' within " + DurationText.format(wait));
        }
        return won;
    }

    /** The grant within {@code wait} ({@code null}: as long as it takes); a failed campaign is thrown. */
    private static Optional<Leadership> grant(CompletableFuture<Leadership> granted, Duration wait)
            throws InterruptedException {
        try {
            return Optional.of(wait == null ? granted.get() : granted.get(wait.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    private static String describe(Leader leader) {
        return "led by " + leader.id() + leader.term().stream().mapToObj(t -> " (term " + t + ")").findFirst().orElse("");
    }

    /** Prints every change until the process is stopped (Ctrl-C, SIGTERM). */
    private int observe(String url, ElectionOptions options) throws InterruptedException {
        try (Coordis coordis = Connections.open(url, spec)) {
            LeaderElection election = coordis.election(name, options);
            try (AutoCloseable ignored = election.observe(event -> terminal.output(event.describe()))) {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        return ExitCodes.OK;
    }

    /** Checks what picocli cannot, before anything touches Redis. */
    private ElectionOptions checkArguments() {
        if (name.isBlank()) {
            throw usage("election name must not be blank: name the election, e.g. reports:scheduler");
        }
        if (observe) {
            if (!command.isEmpty()) {
                throw usage("--observe runs no command: drop '" + String.join(" ", command) + "', or drop --observe");
            }
        } else {
            if (command.isEmpty()) {
                throw usage("missing command: give the command to run while leader after '--', e.g. coordis elect "
                        + name + " -- ./run-scheduler, or use --observe to watch the election");
            }
            List<String> args = spec.commandLine().getParseResult().originalArgs();
            int separator = args.indexOf("--");
            if (separator < 0 || args.size() - separator - 1 != command.size()) {
                throw usage("put NAME before '--' and the command after it, e.g. coordis elect " + name + " -- "
                        + String.join(" ", command));
            }
        }
        if (grace.duration().isNegative()) {
            throw usage("--grace must not be negative");
        }
        if (wait != null && wait.isNegative()) {
            throw usage("--wait must not be negative");
        }
        ElectionOptions options = ElectionOptions.defaults();
        try {
            options = options.withTtl(ttl);
        } catch (IllegalArgumentException e) {
            throw usage("invalid --ttl: " + e.getMessage());
        }
        if (id != null) {
            try {
                options = options.withCandidateId(id);
            } catch (IllegalArgumentException e) {
                throw usage("invalid --id: " + e.getMessage());
            }
        }
        return options;
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
