package io.coordis.cli.support;

import io.coordis.CoordisException;
import io.coordis.Urls;
import io.coordis.NodeVote;
import io.coordis.lock.QuorumUnavailableException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;

/**
 * Turns failures into one line on stderr and an exit status ({@link ExitCodes}): usage errors get a hint
 * to {@code --help}; Redis failures their message (which names the node and never a password); the stack
 * trace only with {@code --debug}.
 */
public final class ErrorReporter implements IParameterExceptionHandler, IExecutionExceptionHandler {
    private final Terminal terminal;
    private final GlobalOptions root;

    public ErrorReporter(Terminal terminal, GlobalOptions root) {
        this.terminal = terminal;
        this.root = root;
    }

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        terminal.say(oneLine(unknownCommand(ex).orElse(ex.getMessage())));
        StringWriter suggestions = new StringWriter();
        if (nearCommand(ex)) {
            UnmatchedArgumentException.printSuggestions(ex, new PrintWriter(suggestions, true));
        }
        if (!suggestions.toString().isBlank()) {
            terminal.err().print(suggestions);
        }
        terminal.err().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for more information.");
        return ExitCodes.USAGE;
    }

    /**
     * Whether suggesting a command makes sense: not for an unknown command that no command's name is a slip away
     * from (picocli suggests any name that shares two letters in a row with it: {@code frobnicate}, {@code latch}).
     */
    static boolean nearCommand(ParameterException ex) {
        if (unknownCommand(ex).isEmpty()) {
            return true;
        }
        String typed = ((UnmatchedArgumentException) ex).getUnmatched().get(0);
        return ex.getCommandLine().getCommandSpec().subcommands().keySet().stream()
                .anyMatch(name -> slips(typed, name) <= Math.max(1, name.length() / 3));
    }

    /** The edits (a letter added, dropped, changed, or two swapped) that turn {@code a} into {@code b}. */
    static int slips(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            for (int j = 0; j <= b.length(); j++) {
                if (i == 0 || j == 0) {
                    d[i][j] = i + j;
                    continue;
                }
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /**
     * What an argument nothing matched is to a command that has subcommands and no parameters of its own: a command
     * it does not have, {@code unknown command 'queue frobnicate': use one of push, pop, ...}. Empty for other errors.
     */
    static Optional<String> unknownCommand(ParameterException ex) {
        if (!(ex instanceof UnmatchedArgumentException u) || u.isUnknownOption() || u.getUnmatched().isEmpty()) {
            return Optional.empty();
        }
        CommandSpec spec = ex.getCommandLine().getCommandSpec();
        if (spec.subcommands().isEmpty() || !spec.positionalParameters().isEmpty()) {
            return Optional.empty();
        }
        String parent = spec.qualifiedName().substring(spec.root().name().length()).strip();
        return Optional.of("unknown command '" + (parent.isEmpty() ? "" : parent + " ") + u.getUnmatched().get(0)
                + "': use one of " + String.join(", ", spec.subcommands().keySet()));
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine commandLine, ParseResult parseResult) {
        if (ex instanceof ParameterException pe) {
            return handleParseException(pe, parseResult.originalArgs().toArray(String[]::new));
        }
        int code = ExitCodes.of(ex);
        terminal.say(describe(ex));
        if (root.debug) {
            ex.printStackTrace(terminal.err());
        } else if (!(ex instanceof CoordisException) && !(ex instanceof CommandFailure)
                && !(ex instanceof IllegalArgumentException)) {
            terminal.err().println("(run with --debug to see where it happened)");
        }
        return code;
    }

    static String describe(Exception ex) {
        if (ex instanceof InterruptedException) {
            return "interrupted";
        }
        String message = ex.getMessage();
        if (ex instanceof QuorumUnavailableException q) {
            return flattened(message) + restartGuardHint(q);
        }
        if (ex instanceof CoordisException || ex instanceof CommandFailure) {
            return oneLine(message);
        }
        if (ex instanceof IllegalArgumentException && message != null) {
            return oneLine(message) + " (see --help)";
        }
        return "internal error: " + ex.getClass().getSimpleName() + (message == null ? "" : ": " + oneLine(message));
    }

    /**
     * A Redlock failure lists every node's vote; all of it goes on the one line (a vote's detail may span
     * lines), so the nodes that failed are always named.
     */
    private static String flattened(String message) {
        return message == null ? "" : inCliTerms(Urls.redact(message.strip())).replaceAll("\\s*\\R\\s*", " ");
    }

    private static String restartGuardHint(QuorumUnavailableException q) {
        boolean refused = q.votes().stream().anyMatch(v -> v.vote() == NodeVote.Vote.REFUSED_RECENT_RESTART);
        return !refused ? "" : " -- the restart guard refuses the vote of a node until it has been up longer than "
                + "the lock's TTL + 1s (it may have forgotten locks it granted before a restart): wait, or pass "
                + "--no-restart-guard if every node runs with appendonly yes and appendfsync always";
    }

    /**
     * The library's advice after a failed TLS handshake names the client builder's settings; here they are the
     * options that set them.
     */
    static String inCliTerms(String message) {
        return message.replace("the client builder's clientCertificate", "--tls-cert and --tls-key")
                .replace("the client builder's trustedCertificates", "--tls-ca");
    }

    private static String oneLine(String message) {
        if (message == null) {
            return "";
        }
        String redacted = inCliTerms(Urls.redact(message.strip()));
        int nl = redacted.indexOf('\n');
        return nl < 0 ? redacted : redacted.substring(0, nl);
    }
}
