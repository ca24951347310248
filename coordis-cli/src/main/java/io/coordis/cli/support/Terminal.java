package io.coordis.cli.support;

import java.io.Console;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * Where a command reads and writes and what environment it sees; {@code System.in}, {@code System.out},
 * {@code System.err} and {@code System.getenv()} in production, something else in tests.
 *
 * @param in  input for commands that read it ({@code signal} without DATA)
 * @param out the command's own output (for {@code lock}: nothing, stdout belongs to the child)
 * @param err messages for people: progress and errors, each prefixed with {@code coordis: }
 * @param env environment variables
 */
public record Terminal(InputStream in, PrintStream out, PrintStream err, Map<String, String> env) {

    public Terminal {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(env);
    }

    /**
     * Writes {@code line} and a newline on {@link #out()} as UTF-8, whatever the platform's charset (Redis
     * payloads are UTF-8 here, and are passed through unchanged), and flushes.
     */
    public void output(String line) {
        out.writeBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Prints {@code coordis: message} on {@link #err()}. */
    public void say(String message) {
        err.println("coordis: " + message);
    }

    /**
     * Whether a person is at this terminal: standard input and output are the JVM's own and both are a
     * terminal (not a pipe or a file), so a question can be asked and answered.
     */
    public boolean interactive() {
        return in == System.in && out == System.out && isTerminal(System.console());
    }

    /**
     * Whether output may be coloured: only on a terminal, and never when {@code NO_COLOR} is set (to
     * anything, see no-color.org) or {@code TERM} is {@code dumb}.
     */
    public boolean colour() {
        return !env.containsKey("NO_COLOR") && !"dumb".equals(env.get("TERM")) && out == System.out
                && isTerminal(System.console());
    }

    /** Java 22+ returns a console for redirected streams too and says so with {@code isTerminal()}. */
    private static boolean isTerminal(Console console) {
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // before Java 22 a console exists only on a terminal
        }
    }
}
