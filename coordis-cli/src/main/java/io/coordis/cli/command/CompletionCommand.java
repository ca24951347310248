package io.coordis.cli.command;

import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code coordis completion [bash|zsh]}: prints a shell completion script for every command and option. */
@Command(name = "completion", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Print a completion script for bash or zsh: commands, subcommands and options complete on TAB.",
                "bash:  source <(coordis completion bash)     (or save it in /etc/bash_completion.d/coordis)",
                "zsh:   source <(coordis completion zsh)      (loads zsh's bash completion support first)"},
        footer = {"", "Exit status: 0 printed; 64 usage (a shell other than bash or zsh)."})
public final class CompletionCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "SHELL", defaultValue = "bash",
            description = "bash or zsh. Default: ${DEFAULT-VALUE}.")
    String shell;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public CompletionCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() {
        CommandLine root = spec.root().commandLine();
        String script = AutoComplete.bash("coordis", root);
        switch (shell) {
            case "bash" -> terminal.output(script);
            case "zsh" -> terminal.output("autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n"
                    + script);
            default -> throw new ParameterException(spec.commandLine(), "unknown shell '" + shell
                    + "': give bash or zsh");
        }
        return ExitCodes.OK;
    }
}
