package io.coordis.cli.support;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The {@code -o/--output} option of the commands that print text or JSON. A command whose text says more than the
 * default gives its own under the key {@code output} ({@link Descriptions}). A picocli mixin; not thread-safe, like
 * the command it is part of.
 */
public final class OutputOption {
    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text", descriptionKey = "output",
            description = "text or json (one JSON document). Default: text.")
    String format;

    /** The format as given, {@code text} when none was. */
    public String format() {
        return format;
    }

    /**
     * Whether the output is JSON: {@code json} or {@code text}, in any case.
     *
     * @throws ParameterException naming both formats for anything else
     */
    public boolean json(CommandSpec caller) {
        if (format.equalsIgnoreCase("json")) {
            return true;
        }
        if (format.equalsIgnoreCase("text")) {
            return false;
        }
        throw new ParameterException(caller.commandLine(), "unknown output format '" + format + "': use text or json");
    }
}
