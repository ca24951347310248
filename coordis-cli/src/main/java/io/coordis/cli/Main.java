package io.coordis.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
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
            out.println(versionLine());
            out.flush();
            return 0;
        }
        return Commands.execute(args, new Terminal(in, out, err, env));
    }

    /** The root's version options: {@code coordis --version} alone is answered here. */
    private static final Set<String> VERSION_OPTIONS = Set.of("--version", "-V");

    /** What {@code --version} prints: the project version written into the jar at build time, and the Java version. */
    static String versionLine() {
        return "coordis " + version() + " (Java " + Runtime.version() + ")";
    }

    static String version() {
        Properties p = new Properties();
        try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the version of coordis", e);
        }
        return p.getProperty("version", "unknown");
    }
}
