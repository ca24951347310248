package io.coordis.cli;

import io.coordis.cli.support.Program;
import io.coordis.cli.support.Terminal;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.Map;
import java.util.Set;

/**
 * Entry point of the {@code coordis} command. It refers to no picocli type, so that {@code coordis --version}
 * is answered before the command tree ({@link Commands}) is loaded.
 */
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
        if (args.length == 1 && VERSION_OPTIONS.contains(args[0])) {
            out.println(Program.versionLine());
            out.flush();
            return 0;
        }
        return Commands.execute(args, new Terminal(in, out, err, env));
    }

    /** The root's version options: {@code coordis --version} alone is answered here. */
    private static final Set<String> VERSION_OPTIONS = Set.of("--version", "-V");
}
