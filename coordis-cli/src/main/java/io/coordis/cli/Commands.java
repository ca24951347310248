package io.coordis.cli;

import io.coordis.cli.command.CompletionCommand;
import io.coordis.cli.command.DoctorCommand;
import io.coordis.cli.command.ElectCommand;
import io.coordis.cli.command.ForceUnlockCommand;
import io.coordis.cli.command.InspectCommand;
import io.coordis.cli.command.LatchCommand;
import io.coordis.cli.command.LeaderCommand;
import io.coordis.cli.command.LockCommand;
import io.coordis.cli.command.LsCommand;
import io.coordis.cli.command.RateCommand;
import io.coordis.cli.command.SemaphoreCommand;
import io.coordis.cli.command.SignalCommand;
import io.coordis.cli.command.WaitCommand;
import io.coordis.cli.dashboard.DashboardCommand;
import io.coordis.cli.demo.DemoCommand;
import io.coordis.cli.queue.QueueCommand;
import io.coordis.cli.support.DurationParser;
import io.coordis.cli.support.ErrorReporter;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.Terminal;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code coordis} command tree (picocli). A run builds only the subcommand its arguments name, when that
 * can be told without parsing: building the model of a subcommand (its annotations, options, converters) is a
 * good part of a short command's start-up.
 */
public final class Commands {
    private Commands() {
    }

    /** Parses {@code args}, runs the command they name and answers its exit status. */
    static int execute(String[] args, Terminal terminal) {
        String named = subcommandNamed(args);
        CommandLine cli = named == null ? commandLine(terminal) : commandLine(terminal, List.of(named));
        GlobalOptions options = cli.getCommand();
        try {
            return cli.execute(args);
        } finally {
            options.close(); // after the command's clients
        }
    }

    /** The root's options that take a value in the next argument (unless written {@code --option=value}). */
    private static final Set<String> ROOT_OPTIONS_WITH_VALUE = Set.of("-u", "--url", "--tls-ca", "--tls-cert",
            "--tls-key", "--key-prefix");

    /** Every subcommand, in the order {@code coordis --help} lists them. */
    private static final Map<String, Function<Terminal, Object>> SUBCOMMANDS = subcommands();

    private static Map<String, Function<Terminal, Object>> subcommands() {
        Map<String, Function<Terminal, Object>> all = new LinkedHashMap<>();
        all.put("lock", LockCommand::new);
        all.put("semaphore", SemaphoreCommand::create);
        all.put("rate", RateCommand::new);
        all.put("signal", SignalCommand::new);
        all.put("wait", WaitCommand::new);
        all.put("demo", DemoCommand::create);
        all.put("elect", ElectCommand::new);
        all.put("leader", LeaderCommand::create);
        all.put("queue", QueueCommand::create);
        all.put("ls", LsCommand::create);
        all.put("inspect", InspectCommand::new);
        all.put("dashboard", DashboardCommand::new);
        all.put("force-unlock", ForceUnlockCommand::create);
        all.put("doctor", DoctorCommand::create);
        all.put("completion", CompletionCommand::new);
        all.put("latch", LatchCommand::new); // last: the listing in usage errors keeps its order
        return all;
    }

    /**
     * The subcommand {@code args} run, when it can be told without parsing: the first argument that is not one
     * of the root's options (or its value). {@code null} when there is none, or it is {@code completion}, which
     * describes every subcommand: then the whole model is built, as help and error messages list them all.
     */
    static String subcommandNamed(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (ROOT_OPTIONS_WITH_VALUE.contains(arg)) {
                i++;
            } else if (!arg.startsWith("-")) {
                return SUBCOMMANDS.containsKey(arg) && !arg.equals("completion") ? arg : null;
            }
        }
        return null;
    }

    /** The whole {@code coordis} command with every subcommand. */
    public static CommandLine commandLine(Terminal terminal) {
        return commandLine(terminal, SUBCOMMANDS.keySet());
    }

    /** The {@code coordis} command with only the subcommands {@code names}. */
    public static CommandLine commandLine(Terminal terminal, Iterable<String> names) {
        CoordisCommand root = new CoordisCommand(terminal);
        CommandLine cli = new CommandLine(root);
        for (String name : names) {
            cli.addSubcommand(SUBCOMMANDS.get(name).apply(terminal));
        }
        ErrorReporter errors = new ErrorReporter(terminal, root);
        // colour (help included) only on a terminal, never with NO_COLOR or TERM=dumb
        cli.setColorScheme(CommandLine.Help.defaultColorScheme(terminal.colour()
                ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
        return cli.registerConverter(Duration.class, new DurationParser())
                .setExpandAtFiles(false)
                .setOut(new PrintWriter(terminal.out(), true))
                .setErr(new PrintWriter(terminal.err(), true))
                .setExecutionStrategy(Commands::run)
                .setParameterExceptionHandler(errors)
                .setExecutionExceptionHandler(errors);
    }

    /**
     * Runs the command {@code parsed} names, as picocli's {@link CommandLine.RunLast} does, once no command was left
     * with arguments it did not match: picocli leaves them unchecked when {@code --help} or {@code --version} is
     * asked for, and {@code coordis frobnicate --help} would print the root's help and exit 0.
     */
    private static int run(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (!p.unmatched().isEmpty() && !p.commandSpec().parser().unmatchedArgumentsAllowed()) {
                throw new UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
            }
        }
        return new CommandLine.RunLast().execute(parsed);
    }
}
