package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.DurationText;
import io.coordis.cli.run.GraceOption;
import io.coordis.cli.run.Teardown;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.LongRunning;
import io.coordis.cli.support.QuietOption;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.QueueOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code coordis queue work Q -- CMD...}: a worker pool. Each message runs CMD once with the payload on its
 * standard input; exit status 0 acks the message, anything else nacks it (dead letter after
 * {@code --max-attempts} failed deliveries). Runs until interrupted (Ctrl-C / SIGTERM: running commands get
 * SIGTERM, then SIGKILL after {@code --grace}; unsettled messages go back to the queue), or with
 * {@code --drain} until the queue stays empty for {@code --wait}.
 */
@Command(name = "work", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Run CMD once per message of queue Q, the payload on its standard input: exit 0 acks, "
                + "anything else nacks (dead letter after --max-attempts failures).",
                "CMD sees COORDIS_QUEUE, COORDIS_DELIVERY_ID and COORDIS_ATTEMPTS in its environment."},
        customSynopsis = "coordis [-u URL] queue work [--concurrency N] [--max-attempts N] [--heartbeat D] [--drain] [-q] "
                + "Q -- CMD [ARG...]")
final class WorkCommand implements Callable<Integer>, LongRunning {
    static final String QUEUE_ENV = "COORDIS_QUEUE";
    static final String ID_ENV = "COORDIS_DELIVERY_ID";
    static final String ATTEMPTS_ENV = "COORDIS_ATTEMPTS";

    @Parameters(index = "1..*", paramLabel = "CMD", description = "The command to run per message, after --.")
    List<String> command = new ArrayList<>();

    @Option(names = {"-c", "--concurrency"}, paramLabel = "N", defaultValue = "1",
            description = "Run up to N commands at once. Default: ${DEFAULT-VALUE}.")
    int concurrency;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "5",
            description = "Dead-letter a message once it failed N times. Default: ${DEFAULT-VALUE}.")
    int maxAttempts;

    @Option(names = {"-w", "--wait"}, paramLabel = "D", defaultValue = "5s",
            description = "How long one take waits for a message. Default: ${DEFAULT-VALUE}.")
    Duration wait;

    @Option(names = "--drain", description = "Exit once no message came within --wait.")
    boolean drain;

    @Option(names = "--heartbeat", paramLabel = "D", defaultValue = "10s",
            description = "This worker's heartbeat TTL, renewed every third of it: if the worker dies without a "
                    + "goodbye (kill -9, lost network), other workers put its unsettled messages back within about "
                    + "D + 4s. At least 300ms. Default: ${DEFAULT-VALUE}.")
    Duration heartbeat;

    @Mixin
    GraceOption grace = new GraceOption();

    @Mixin
    QuietOption quiet = new QuietOption();

    @Mixin
    QueueTarget queue = new QueueTarget();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;
    private final Set<Process> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    WorkCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code work} command; its {@code --grace} is about the commands running when it is stopped. */
    static CommandLine create(Terminal terminal) {
        return Descriptions.of(new WorkCommand(terminal), "grace",
                "On Ctrl-C / SIGTERM, how long running commands may take after SIGTERM. Default: ${DEFAULT-VALUE}.");
    }

    @Override
    public Integer call() throws InterruptedException {
        QueueOptions options = checkArguments();
        AtomicInteger failures = new AtomicInteger();
        try (Coordis coordis = queue.connect()) {
            Consumer consumer = coordis.reliableQueue(queue.name, options).consumer();
            Thread hook = new Thread(() -> shutdown(consumer), "coordis-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            progress("working on queue '" + queue.name + "' as consumer " + consumer.id() + " (" + concurrency
                    + " at once)");
            List<Thread> workers = new ArrayList<>();
            List<RuntimeException> errors = new ArrayList<>();
            for (int i = 0; i < concurrency; i++) {
                Thread t = new Thread(() -> {
                    try {
                        loop(consumer);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        synchronized (errors) {
                            errors.add(e);
                        }
                        failures.incrementAndGet();
                    }
                }, "coordis-worker-" + i);
                t.start();
                workers.add(t);
            }
            for (Thread t : workers) {
                t.join();
            }
            consumer.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs and finds everything done
            }
            if (!errors.isEmpty()) {
                throw errors.get(0);
            }
        }
        return ExitCodes.OK;
    }

    private void loop(Consumer consumer) throws InterruptedException {
        while (!stopping) {
            Optional<Delivery> taken;
            try {
                taken = consumer.take(wait);
            } catch (IllegalStateException closed) {
                return;
            }
            if (taken.isEmpty()) {
                if (drain) {
                    return;
                }
                continue;
            }
            Delivery d = taken.get();
            int status = run(d);
            if (stopping && status != 0) {
                return; // stopped by us: the consumer's close gives the message back, not counted as a failure
            }
            Outcome o = settle(d, status == 0);
            if (status != 0) {
                progress("delivery " + d.id() + " failed (exit " + status + ", attempt " + d.attempts() + "): "
                        + o.name().toLowerCase(Locale.ROOT).replace('_', ' '));
            }
        }
    }

    /** Acks or nacks, retrying while Redis cannot be reached (settling twice is safe). */
    private Outcome settle(Delivery d, boolean ok) throws InterruptedException {
        long backoff = 100;
        while (true) {
            try {
                return ok ? d.ack() : d.nack();
            } catch (CoordisException e) {
                if (stopping) {
                    throw e;
                }
                terminal.say("could not " + (ok ? "ack" : "nack") + " " + d.id() + " (" + e.getMessage()
                        + "); retrying");
                Thread.sleep(backoff);
                backoff = Math.min(5000, backoff * 2);
            }
        }
    }

    private int run(Delivery d) throws InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put(QUEUE_ENV, queue.name);
        builder.environment().put(ID_ENV, d.id());
        builder.environment().put(ATTEMPTS_ENV, Integer.toString(d.attempts()));
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage();
            throw new CommandFailure(why.contains("error=2,") ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE,
                    "cannot run '" + command.get(0) + "': " + why.replaceFirst(".*error=\\d+, ", ""), e);
        }
        running.add(p);
        try (OutputStream in = p.getOutputStream()) {
            in.write(d.payload());
        } catch (IOException e) {
            // the command does not read its input: fine
        }
        try {
            return p.waitFor();
        } finally {
            running.remove(p);
        }
    }

    private void shutdown(Consumer consumer) {
        stopping = true;
        for (Process p : running) {
            p.destroy();
        }
        for (Process p : running) {
            Teardown.stop(p, grace.duration());
        }
        consumer.close();
    }

    private QueueOptions checkArguments() {
        queue.name();
        if (command.isEmpty()) {
            throw usage("missing command: give the command to run per message after '--', e.g. coordis queue work "
                    + queue.name + " -- ./handle.sh");
        }
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int separator = args.indexOf("--");
        if (separator < 0 || args.size() - separator - 1 != command.size()) {
            throw usage("put Q before '--' and the command after it, e.g. coordis queue work " + queue.name + " -- "
                    + String.join(" ", command));
        }
        if (concurrency < 1 || concurrency > 1024) {
            throw usage("--concurrency must be between 1 and 1024, was " + concurrency);
        }
        if (wait.isNegative() || wait.isZero()) {
            throw usage("--wait must be positive, was " + DurationText.format(wait));
        }
        QueueOptions options = QueueOptions.defaults().withSlots(concurrency);
        try {
            options = options.withMaxAttempts(maxAttempts);
        } catch (IllegalArgumentException e) {
            throw usage("invalid --max-attempts: " + e.getMessage());
        }
        try {
            return options.withHeartbeatTtl(heartbeat);
        } catch (IllegalArgumentException e) {
            throw usage("invalid --heartbeat: " + e.getMessage());
        }
    }

    private void progress(String message) {
        if (!quiet.on()) {
            terminal.say(message);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
