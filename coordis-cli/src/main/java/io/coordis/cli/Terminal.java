package io.coordis.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.Objects;

/**
 * Where a command writes and what environment it sees; {@code System.out}, {@code System.err} and
 * {@code System.getenv()} in production, something else in tests.
 *
 * @param out the command's own output (for {@code lock}: nothing, stdout belongs to the child)
 * @param err messages for people: progress and errors, each prefixed with {@code coordis: }
 * @param env environment variables
 */
record Terminal(PrintStream out, PrintStream err, Map<String, String> env) {

    Terminal {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(err, "err");
        env = Map.copyOf(env);
    }

    /** Prints {@code coordis: message} on {@link #err()}. */
    void say(String message) {
        err.println("coordis: " + message);
    }
}
