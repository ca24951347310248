package io.coordis.cli;

import picocli.CommandLine;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;

/** Entry point of the {@code coordis} command. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err, System.getenv()));
    }

    /**
     * Runs {@code coordis} with {@code args} and answers its exit status, without exiting the JVM.
     *
     * @param out the command's own output
     * @param err progress and error messages
     * @param env the environment variables the command sees ({@code COORDIS_URL})
     */
    public static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
        return run(args, System.in, out, err, env);
    }

    /**
     * Like {@link #run(String[], PrintStream, PrintStream, Map)}, reading {@code in} where a command reads
     * standard input ({@code signal} without DATA).
     */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {
        return commandLine(new Terminal(in, out, err, env)).execute(args);
    }

    static CommandLine commandLine(Terminal terminal) {
        CoordisCommand root = new CoordisCommand(terminal);
        CommandLine cli = new CommandLine(root)
                .addSubcommand(new LockCommand(terminal))
                .addSubcommand(new SignalCommand(terminal))
                .addSubcommand(new WaitCommand(terminal))
                .addSubcommand(new DemoCommand(terminal))
                .addSubcommand(new ElectCommand(terminal))
                .addSubcommand(new LeaderCommand(terminal))
                .addSubcommand(QueueCommand.create(terminal))
                .addSubcommand(new LsCommand(terminal))
                .addSubcommand(new InspectCommand(terminal))
                .addSubcommand(new ForceUnlockCommand(terminal))
                .addSubcommand(new DoctorCommand(terminal))
                .addSubcommand(new CompletionCommand(terminal));
        ErrorReporter errors = new ErrorReporter(terminal, root);
        // colour (help included) only on a terminal, never with NO_COLOR or TERM=dumb
        cli.setColorScheme(CommandLine.Help.defaultColorScheme(terminal.colour()
                ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF));
        return cli.registerConverter(Duration.class, new DurationParser())
                .setExpandAtFiles(false)
                .setOut(new PrintWriter(terminal.out(), true))
                .setErr(new PrintWriter(terminal.err(), true))
                .setParameterExceptionHandler(errors)
                .setExecutionExceptionHandler(errors);
    }
}
