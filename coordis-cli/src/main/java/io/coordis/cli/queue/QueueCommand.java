package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.UrlOption;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.Order;
import io.coordis.Outcome;
import io.coordis.queue.QueueOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code coordis queue push|pop|ack|nack|requeue|stats|work}: queues on plain Redis lists. Payloads pass
 * through as bytes; {@code pop} prints the payload alone on stdout.
 */
@Command(name = "queue", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Queues on plain Redis lists: producers LPUSH, FIFO consumers take from the right.",
                "Reliable pops hold the message in a processing slot until 'ack'; unacked messages come back."},
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "Exit status: 0 done; 1 queue empty ('pop'), or the delivery was already given back ('ack', "
                        + "'nack'); 64 usage; 65 the key holds another type; 69 Redis unavailable; 77 credentials "
                        + "refused."})
public final class QueueCommand implements Callable<Integer> {
    @ParentCommand
    GlobalOptions root;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    QueueCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code queue} command with its subcommands, for the command tree. */
    public static CommandLine create(Terminal terminal) {
        return new CommandLine(new QueueCommand(terminal))
                .addSubcommand(new PushCommand(terminal))
                .addSubcommand(new PopCommand(terminal))
                .addSubcommand(new AckCommand(terminal))
                .addSubcommand(new NackCommand(terminal))
                .addSubcommand(RequeueCommand.create(terminal))
                .addSubcommand(StatsCommand.create(terminal))
                .addSubcommand(WorkCommand.create(terminal));
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing queue command: use one of "
                + String.join(", ", spec.subcommands().keySet()));
    }

    Coordis connect(CommandSpec caller, UrlOption urls) {
        return Connections.open(root.url(caller, urls), caller);
    }

    static String checkedName(CommandSpec caller, String name) {
        if (name.isEmpty()) {
            throw new ParameterException(caller.commandLine(), "queue name must not be empty");
        }
        return name;
    }

    static QueueOptions options(CommandSpec caller, boolean lifo, Integer maxSize) {
        QueueOptions o = QueueOptions.defaults().withOrder(lifo ? Order.LIFO : Order.FIFO);
        if (maxSize != null) {
            try {
                o = o.withMaxMessageBytes(maxSize);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(caller.commandLine(), "invalid --max-size: " + e.getMessage());
            }
        }
        return o;
    }

    /** Prints what became of the delivery {@code id} ({@code ack}, {@code nack}); answers the exit status. */
    static int report(Terminal terminal, Outcome outcome, String id) {
        String word = outcome.name().toLowerCase(Locale.ROOT).replace('_', ' ');
        terminal.output(word);
        if (outcome == Outcome.GONE) {
            terminal.say("delivery " + id + " is no longer held: it was given back (its holder's heartbeat or "
                    + "--visibility expired) and will be, or was, delivered again");
            return ExitCodes.NO_SIGNAL;
        }
        return ExitCodes.OK;
    }
}
