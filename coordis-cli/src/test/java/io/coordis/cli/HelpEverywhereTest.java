package io.coordis.cli;

import io.coordis.cli.support.Terminal;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command and subcommand answers -h/--help with its usage and -V/--version with the version, exit 0. */
class HelpEverywhereTest {

    /** The command paths of the whole tree, e.g. [], [lock], [queue, push]. */
    private static List<List<String>> paths(CommandLine cl, List<String> prefix) {
        List<List<String>> out = new ArrayList<>();
        out.add(prefix);
        for (Map.Entry<String, CommandLine> e : cl.getSubcommands().entrySet()) {
            if (!e.getKey().equals(e.getValue().getCommandName())) {
                continue; // an alias
            }
            List<String> path = new ArrayList<>(prefix);
            path.add(e.getKey());
            out.addAll(paths(e.getValue(), path));
        }
        return out;
    }

    @Test
    void everyCommandHasHelpAndVersion() {
        CommandLine root = Commands.commandLine(new Terminal(System.in, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(new ByteArrayOutputStream()), Map.of()));
        List<List<String>> paths = paths(root, List.of());
        assertThat(paths).as("commands found").hasSizeGreaterThan(15)
                .contains(List.of("doctor"), List.of("completion"), List.of("queue", "push"), List.of("demo"));
        InProcess cli = new InProcess();
        for (List<String> path : paths) {
            String name = String.join(" ", path);
            for (String flag : List.of("-h", "--help")) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                int status = cli.run(args.toArray(String[]::new));
                assertThat(status).as("'%s %s': %s", name, flag, cli.err()).isZero();
                assertThat(cli.out()).as("'%s %s'", name, flag)
                        .startsWith("Usage: coordis")
                        .contains(path.isEmpty() ? "coordis" : " " + path.get(path.size() - 1) + " ")
                        .doesNotContain("\u001b[");
                assertThat(cli.err()).isEmpty();
            }
            for (String flag : List.of("-V", "--version")) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                int status = cli.run(args.toArray(String[]::new));
                assertThat(status).as("'%s %s': %s", name, flag, cli.err()).isZero();
                assertThat(cli.out()).as("'%s %s'", name, flag).startsWith("coordis 0.");
            }
        }
    }

    @Test
    void helpTextHasNoFormatErrors() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8)); // picocli warns about bad % here
        try {
            CommandLine root = Commands.commandLine(new Terminal(System.in, new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(new ByteArrayOutputStream()), Map.of()));
            for (List<String> path : paths(root, List.of())) {
                CommandLine cl = root;
                for (String p : path) {
                    cl = cl.getSubcommands().get(p);
                }
                cl.getUsageMessage();
            }
        } finally {
            System.setErr(saved);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("Could not format");
    }
}
