package io.coordis.cli.support;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of the commands that read Redis and print what they find as text or JSON ({@code ls}, {@code inspect},
 * {@code leader}, {@code force-unlock}, {@code demo}): the format, {@code -o/--output} ({@link OutputOption}), and
 * where Redis is, {@code -u/--url} ({@link UrlOption}); and the command they are part of, which usage errors name. A
 * picocli mixin; not thread-safe, like the command it is part of.
 */
public final class ReportOptions {
    @Mixin
    OutputOption output = new OutputOption();

    @Mixin
    UrlOption urls = new UrlOption();

    /** The command these options are mixed into. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The format as given, {@code text} when none was. */
    public String format() {
        return output.format();
    }

    /**
     * Whether the output is JSON: {@code json} or {@code text}, in any case.
     *
     * @throws ParameterException naming both formats for anything else
     */
    public boolean json() {
        return output.json(command);
    }

    /** Where Redis is: {@link UrlOption#all()}, {@link UrlOption#one()} or {@link UrlOption#explicit()}. */
    public UrlOption urls() {
        return urls;
    }

    /** The command these options are part of: usage errors name it, and it reaches the root's options. */
    public CommandSpec spec() {
        return command;
    }

    /** A usage error of the command, saying {@code message}. */
    public ParameterException usage(String message) {
        return new ParameterException(command.commandLine(), message);
    }
}
