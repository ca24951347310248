package io.coordis.cli;

import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code coordis}: the root of the command tree; its options, which every subcommand shares, are {@link GlobalOptions}. */
@Command(name = "coordis", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Distributed coordination on Redis: run a command while holding a lock or while leader of "
                + "an election, signal and wait, try the demo.",
        footer = {"", "Exit status: the command's own for 'lock' and 'elect'; 1 lock not acquired (-E), not "
                + "elected within --wait ('elect'), nobody leads ('leader'), or no signal within "
                + "--timeout ('wait'); 64 usage; "
                + "65 a key holds the wrong type; 69 Redis unavailable; 70 internal error; 75 lock or leadership "
                + "lost while the command ran; 77 credentials or permission refused."})
final class CoordisCommand extends GlobalOptions implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    CoordisCommand(Terminal terminal) {
        super(terminal);
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing command: use one of "
                + String.join(", ", spec.subcommands().keySet()));
    }
}
